// eventually polls `read` until `ok` holds for its value or the timeout passes; tests assert eventual state with it.
export async function eventually<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean = (v) => Boolean(v),
  { timeoutMs = 10_000, intervalMs = 10, message = 'condition' }: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastErr: unknown;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline) {
      const detail = lastErr ? ` (last error: ${lastErr instanceof Error ? lastErr.message : String(lastErr)})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${message}; last value: ${JSON.stringify(last)}${detail}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
