type Missing<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/** A list naming every key of `T`, checked by the compiler, so hand-written field lists stay in step. */
export function everyKeyOf<T>() {
  return <const K extends readonly (keyof T)[]>(
    keys: K & ([Missing<T, K>] extends [never] ? unknown : { missingKeys: Missing<T, K> }),
  ): K => keys;
}
