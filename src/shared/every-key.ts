type Missing<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * A list naming every key of `T`, checked by the compiler: a key added to `T` and not to the list
 * is a type error where the list is written. It costs nothing at run time, so hand-written field
 * lists on hot paths stay in step with the type they mirror.
 */
export function everyKeyOf<T>() {
  return <const K extends readonly (keyof T)[]>(
    keys: K & ([Missing<T, K>] extends [never] ? unknown : { missingKeys: Missing<T, K> }),
  ): K => keys;
}
