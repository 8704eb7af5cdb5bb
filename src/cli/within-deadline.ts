/**
 * `work`, or `late()` thrown once `ms` have passed without it settling. The work is not stopped
 * (a read the API server never answers stays pending): a command using this exits once it has
 * answered (exitOnceAnswered).
 */
export async function withinDeadline<T>(
  work: Promise<T>,
  ms: number,
  late: () => Error,
): Promise<T> {
  work.catch(() => undefined); // settled after the deadline: nobody waits for it any more
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
