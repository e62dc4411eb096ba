// ClientCache keeps one KubeClient per cluster identity (e.g. `Sveltos:ns/name`), so every controller shares the
// keep-alive sockets and discovery cache of a cluster. A client is rebuilt when its kubeconfig text changes; the
// replaced client is closed after a grace period, so requests already under way on it can finish.
import { createHash } from 'node:crypto';
import { KubeClient, type KubeClientOptions } from './client.js';
import { loadKubeConfig } from './kubeconfig.js';

interface Entry {
  client: KubeClient;
  hash: string;
}

/** ClientCacheOptions configures a ClientCache. */
export interface ClientCacheOptions {
  /** Options for every client built. */
  client?: KubeClientOptions;
  /** How long a replaced client stays open for requests already under way (default 30 s). */
  closeGraceMs?: number;
}

/** ClientCache builds and reuses clients keyed by cluster identity. */
export class ClientCache {
  private readonly entries = new Map<string, Entry>();
  private readonly retired = new Map<KubeClient, NodeJS.Timeout>();
  private readonly listeners = new Set<(identity: string) => void>();

  constructor(private readonly options: ClientCacheOptions = {}) {}

  /**
   * client returns the client for identity built from kubeconfig (YAML text, optional context), reusing the cached
   * one when the text is unchanged. Throws KubeConfigError for an unusable kubeconfig.
   */
  client(identity: string, kubeconfig: string, context?: string): KubeClient {
    const hash = createHash('sha256').update(kubeconfig).update('\u0000').update(context ?? '').digest('hex');
    const cur = this.entries.get(identity);
    if (cur && cur.hash === hash && !cur.client.closed) return cur.client;
    const client = new KubeClient(loadKubeConfig({ yaml: kubeconfig, context }), { ...this.options.client, name: identity });
    this.entries.set(identity, { client, hash });
    if (cur) {
      this.retire(cur.client);
      for (const l of [...this.listeners]) l(identity);
    }
    return client;
  }

  /** peek returns the cached client of identity without building one. */
  peek(identity: string): KubeClient | undefined {
    return this.entries.get(identity)?.client;
  }

  /** onRebuild registers a listener called with the identity whose client was replaced; returns a remover. */
  onRebuild(listener: (identity: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** delete drops (and closes) the client of identity. */
  delete(identity: string): void {
    const cur = this.entries.get(identity);
    if (!cur) return;
    this.entries.delete(identity);
    cur.client.close();
  }

  /** identities lists the cached identities. */
  identities(): string[] {
    return [...this.entries.keys()];
  }

  private retire(client: KubeClient): void {
    const grace = this.options.closeGraceMs ?? 30_000;
    if (grace <= 0) {
      client.close();
      return;
    }
    const t = setTimeout(() => {
      this.retired.delete(client);
      client.close();
    }, grace);
    t.unref();
    this.retired.set(client, t);
  }

  /** close closes every client (including replaced ones still in their grace period). */
  close(): void {
    for (const [c, t] of this.retired) {
      clearTimeout(t);
      c.close();
    }
    this.retired.clear();
    for (const e of this.entries.values()) e.client.close();
    this.entries.clear();
  }
}
