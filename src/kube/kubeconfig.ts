// Kubeconfig handling: parse a kubeconfig (file, YAML text, object or a client-node KubeConfig) with client-node,
// select a context, check it is usable, and flatten it into a self-contained single-context document (what a
// kubeconfig Secret must hold: no file references, which would not exist inside the management cluster).
import { KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { KubeConfigError } from './errors.js';

/** KubeConfigSource is where a kubeconfig comes from; `context` overrides its current-context. */
export type KubeConfigSource = (
  | { file: string }
  | { yaml: string }
  | { object: Record<string, unknown> }
  | { kubeConfig: KubeConfig }
) & { context?: string };

/** loadKubeConfig parses a kubeconfig and selects its context; throws KubeConfigError when it cannot be used. */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  let kc: KubeConfig;
  if ('kubeConfig' in source) {
    // Copy, so selecting a context never changes the caller's object.
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: source.kubeConfig.clusters,
      users: source.kubeConfig.users,
      contexts: source.kubeConfig.contexts,
      currentContext: source.kubeConfig.currentContext,
    });
  } else {
    kc = new KubeConfig();
    let text: string;
    let where: string;
    if ('file' in source) {
      where = source.file;
      try {
        text = readFileSync(source.file, 'utf8');
      } catch (err) {
        throw new KubeConfigError('Unreadable', `cannot read kubeconfig ${source.file}: ${(err as Error).message}`, { cause: err });
      }
    } else if ('yaml' in source) {
      where = 'kubeconfig';
      text = source.yaml;
    } else {
      where = 'kubeconfig object';
      text = JSON.stringify(source.object);
    }
    try {
      kc.loadFromString(text);
    } catch (err) {
      throw new KubeConfigError('Malformed', `${where} is not a valid kubeconfig: ${(err as Error).message}`, { cause: err });
    }
    if ('file' in source) kc.makePathsAbsolute(dirnameOf(source.file));
  }
  if (source.context !== undefined) {
    if (!kc.getContextObject(source.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError('NoContext', `context ${JSON.stringify(source.context)} not found in kubeconfig (contexts: ${known.join(', ') || 'none'})`);
    }
    kc.setCurrentContext(source.context);
  }
  checkUsable(kc);
  return kc;
}

function dirnameOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i <= 0 ? (i === 0 ? '/' : '.') : file.slice(0, i);
}

/** checkUsable verifies the current context names an existing cluster (with an http(s) server URL) and user. */
function checkUsable(kc: KubeConfig): void {
  const name = kc.getCurrentContext();
  if (!name) throw new KubeConfigError('NoContext', 'kubeconfig has no current-context; pass a context explicitly');
  const ctx = kc.getContextObject(name);
  if (!ctx) throw new KubeConfigError('NoContext', `current-context ${JSON.stringify(name)} is not defined in the kubeconfig`);
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster) throw new KubeConfigError('NoCluster', `context ${JSON.stringify(name)} refers to cluster ${JSON.stringify(ctx.cluster)}, which the kubeconfig does not define`);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new KubeConfigError('BadServer', `cluster ${JSON.stringify(cluster.name)} has server ${JSON.stringify(cluster.server)}, which is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new KubeConfigError('BadServer', `cluster ${JSON.stringify(cluster.name)} server must be http(s), got ${JSON.stringify(cluster.server)}`);
  }
  // A context without a user is legal (anonymous access); one that names a missing user is a typo worth reporting.
  if (ctx.user && !kc.getUser(ctx.user)) {
    throw new KubeConfigError('NoUser', `context ${JSON.stringify(name)} refers to user ${JSON.stringify(ctx.user)}, which the kubeconfig does not define`);
  }
}

function fileData(path: string | undefined, what: string): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path).toString('base64');
  } catch (err) {
    throw new KubeConfigError('Unreadable', `cannot read ${what} ${path}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * flattenKubeConfig returns a self-contained kubeconfig document holding only the current context, its cluster and
 * user, with every referenced file (CA, client certificate and key) inlined as *-data fields.
 */
export function flattenKubeConfig(kc: KubeConfig): Record<string, unknown> {
  checkUsable(kc);
  const ctx = kc.getContextObject(kc.getCurrentContext())!;
  const cluster = kc.getCluster(ctx.cluster)!;
  const user = ctx.user ? kc.getUser(ctx.user) : null;
  const clusterOut: Record<string, unknown> = { server: cluster.server };
  const ca = cluster.caData ?? fileData(cluster.caFile, 'certificate authority');
  if (ca) clusterOut['certificate-authority-data'] = ca;
  if (cluster.skipTLSVerify) clusterOut['insecure-skip-tls-verify'] = true;
  if (cluster.tlsServerName) clusterOut['tls-server-name'] = cluster.tlsServerName;
  if (cluster.proxyUrl) clusterOut['proxy-url'] = cluster.proxyUrl;
  const userOut: Record<string, unknown> = {};
  if (user) {
    const cert = user.certData ?? fileData(user.certFile, 'client certificate');
    const key = user.keyData ?? fileData(user.keyFile, 'client key');
    if (cert) userOut['client-certificate-data'] = cert;
    if (key) userOut['client-key-data'] = key;
    if (user.token) userOut.token = user.token.trim();
    if (user.username) userOut.username = user.username;
    if (user.password) userOut.password = user.password;
    if (user.exec) userOut.exec = user.exec;
    if (user.authProvider) userOut['auth-provider'] = user.authProvider;
    if (user.impersonateUser) userOut.as = user.impersonateUser;
  }
  const userName = user?.name ?? 'user';
  const contextOut: Record<string, unknown> = { cluster: cluster.name, user: userName };
  if (ctx.namespace) contextOut.namespace = ctx.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster.name, cluster: clusterOut }],
    users: [{ name: userName, user: userOut }],
    contexts: [{ name: ctx.name, context: contextOut }],
    'current-context': ctx.name,
    preferences: {},
  };
}

/** kubeConfigYaml renders a kubeconfig document as YAML. */
export function kubeConfigYaml(doc: Record<string, unknown>): string {
  return toYaml(doc);
}

/** currentServer returns the server URL of the kubeconfig's current context. */
export function currentServer(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeConfigError('NoCluster', 'kubeconfig has no current cluster');
  return cluster.server;
}

/** KubeConfigParts are what a single-context kubeconfig needs: a server, optionally a CA (PEM) and credentials. */
export interface KubeConfigParts {
  server: string;
  /** PEM of the CA that signed the server certificate. */
  caPem?: string;
  token?: string;
  /** An exec credential plugin (client.authentication.k8s.io ExecConfig) instead of a token. */
  exec?: Record<string, unknown>;
  /** Name of the cluster, user and context (default `cluster`). */
  name?: string;
}

/** singleContextKubeConfig builds a kubeconfig document with one cluster, user and context. */
export function singleContextKubeConfig(p: KubeConfigParts): Record<string, unknown> {
  const name = p.name ?? 'cluster';
  const cluster: Record<string, unknown> = { server: p.server };
  if (p.caPem) cluster['certificate-authority-data'] = Buffer.from(p.caPem).toString('base64');
  const user: Record<string, unknown> = {};
  if (p.token) user.token = p.token;
  if (p.exec) user.exec = p.exec;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
    preferences: {},
  };
}
