/** A gate letting at most `limit` tasks run at once (a controller's worker count); the others wait in order. */
export function workers(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** Runs `work` over `items` with at most `limit` at a time, in the items' order. */
export async function pool<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const run = workers(limit);
  await Promise.all(items.map((item) => run(() => work(item))));
}
