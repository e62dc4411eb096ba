// shards.ts: how a shard key (annotation sharding.projectsveltos.io/key on a cluster, `--shard-key` on a manager)
// names the Lease its replicas compete for. One Lease per shard: replicas of one shard elect one active manager,
// replicas of different shards never compete.
import { createHash } from 'node:crypto';

/** LEASE_BASE_NAME is the Lease of a manager that handles every cluster (no --shard-key). */
export const LEASE_BASE_NAME = 'ripple-manager';

// A Lease name is a DNS-1123 subdomain (≤ 253); we keep the shard part short and readable.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const MAX_PLAIN = 40;

/**
 * leaseNameForShard derives the Lease name of a shard:
 * - no shard key (every cluster): `ripple-manager`;
 * - `''` (the clusters without the annotation): `ripple-manager-unsharded`;
 * - a key that is a lowercase DNS label of at most 40 characters: `ripple-manager-shard-<key>`;
 * - any other key: `ripple-manager-shard-<sanitized>-<hash>`, where sanitized is the key lowercased with runs of
 *   other characters turned into `-` (at most 30 characters) and hash the first 10 hex digits of its SHA-256 —
 *   distinct keys never share a Lease (`Blue` and `blue` differ).
 */
export function leaseNameForShard(shardKey: string | undefined): string {
  if (shardKey === undefined) return LEASE_BASE_NAME;
  if (shardKey === '') return `${LEASE_BASE_NAME}-unsharded`;
  if (shardKey.length <= MAX_PLAIN && DNS_LABEL.test(shardKey)) return `${LEASE_BASE_NAME}-shard-${shardKey}`;
  const sanitized = shardKey
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 30)
    .replace(/^-+|-+$/g, '');
  const hash = createHash('sha256').update(shardKey).digest('hex').slice(0, 10);
  return `${LEASE_BASE_NAME}-shard-${sanitized ? `${sanitized}-` : ''}${hash}`;
}
