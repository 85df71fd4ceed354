/** Notes and external references apply asynchronously, in order (spec, update-note rule 2, references rule 5). */
export interface AsyncWrites {
  schedule(apply: () => void): void;
  /** Applies every accepted write now. */
  settle(): void;
  pending(): number;
  close(): void;
}

export function createAsyncWrites(delayMs: number): AsyncWrites {
  const queue: Array<{ apply: () => void; timer: NodeJS.Timeout }> = [];
  const runThrough = (count: number): void => {
    for (const item of queue.splice(0, count)) {
      clearTimeout(item.timer);
      item.apply();
    }
  };
  return {
    schedule(apply) {
      const item = {
        apply,
        timer: setTimeout(() => {
          const index = queue.indexOf(item);
          if (index >= 0) runThrough(index + 1);
        }, delayMs),
      };
      queue.push(item);
    },
    settle: () => runThrough(queue.length),
    pending: () => queue.length,
    close() {
      for (const item of queue.splice(0)) clearTimeout(item.timer);
    },
  };
}
