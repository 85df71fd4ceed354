/** Strings numbered in the order first seen: a column holds the number, the list the string. */
export class Interner {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(value);
      this.index.set(value, i);
    }
    return i;
  }
}
