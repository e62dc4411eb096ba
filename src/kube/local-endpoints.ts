// local-endpoints: API servers this process serves itself. `ripple up` runs its embedded API server in the same
// process (on a worker thread); clients of its clusters — the control plane's, built from the very kubeconfigs users
// get — would otherwise reach it over loopback TCP with TLS, paying encryption and the kernel's TCP stack on both
// sides of every request. A server registered here (its https://127.0.0.1:PORT origin and the Unix socket it serves
// in its 0700 data directory) is reached through that socket instead, in plain HTTP: same requests, same bearer
// tokens, same answers. Only code that started the server registers it, and removes it when the server stops.

const endpoints = new Map<string, string>();

/** registerLocalEndpoint routes clients of server URLs with this origin through socketPath; returns the remover. */
export function registerLocalEndpoint(origin: string, socketPath: string): () => void {
  const key = new URL(origin).origin;
  endpoints.set(key, socketPath);
  return () => {
    if (endpoints.get(key) === socketPath) endpoints.delete(key);
  };
}

/** localEndpoint returns the Unix socket serving serverUrl in this process, if any. */
export function localEndpoint(serverUrl: string): string | undefined {
  if (endpoints.size === 0) return undefined;
  try {
    return endpoints.get(new URL(serverUrl).origin);
  } catch {
    return undefined;
  }
}
