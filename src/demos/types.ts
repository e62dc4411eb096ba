// types.ts: a demo is data — the clusters it needs, the seed YAML it applies where, the user actions of its scenario
// and the outcomes each action must produce, with checks. The runner (runner.ts) executes it against any clusters.
import type { KubeObject } from '../kube/index.js';
import type { SeedRef } from './seeds.js';

/** DemoCluster is a managed cluster a demo needs: its name (also its SveltosCluster namespace) and labels. */
export interface DemoCluster {
  name: string;
  labels: Record<string, string>;
}

/** Objects are what an action applies: seed documents, or objects the seed implies but does not show. */
export type Objects =
  | { seed: SeedRef }
  /** Objects written for the demo; `why` says why the seed does not provide them. */
  | { inline: KubeObject[]; why: string };

/** ObjectRef identifies one object in a cluster. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Action is one thing a user does. */
export type Action =
  /** Apply objects to a cluster; namespaced objects without a namespace go to `namespace` (kubectl -n), else default. */
  | { type: 'apply'; cluster: string; objects: Objects; namespace?: string }
  | { type: 'delete'; cluster: string; ref: ObjectRef }
  /** Publish a CloudEvent on a NATS subject (demos with `nats: true`; the env's publish does it). */
  | { type: 'publish'; subject: string; event: { type: string; source: string; subject?: string; data?: unknown } };

/** Vars carries values one expectation observed to later ones of the same step (e.g. an assigned address). */
export type Vars = Map<string, string>;

/** Expectation is an outcome: objects of one kind in one cluster that must (or must not) satisfy a check. */
export interface Expectation {
  /** What should happen, in the reader's terms. */
  what: string;
  cluster: string;
  find: { apiVersion: string; kind: string; namespace?: string; name?: string };
  /** Met when this returns undefined; otherwise it says what is still missing. Default: at least one object. */
  check?: (objects: readonly KubeObject[], vars: Vars) => string | undefined;
  /** Met when no object is found (deletion and cleanup outcomes). */
  absent?: boolean;
  /**
   * The object must contain the seed's example output: each listed top-level field of that output document must be
   * present with the same values (objects: every key; lists: same length, element by element; more is allowed).
   */
  like?: { seed: SeedRef; fields: string[] };
}

/** Step is a user action and the outcomes it must produce. */
export interface Step {
  title: string;
  actions: Action[];
  expect: Expectation[];
  /** Run this step when the demo runs for exploring (not only with --once); later steps are suggested instead. */
  explore?: boolean;
}

/** Variant is the same scenario from another seed document (older or newer revision of the YAML). */
export interface Variant {
  seed: string;
  summary: string;
  setup: Action[];
  steps: Step[];
}

/** Demo is one seed scenario. */
export interface Demo {
  name: string;
  title: string;
  /** Seed documents the scenario comes from (the default variant's first). */
  seeds: string[];
  /** Two or three lines: what the user sees happen. */
  summary: string;
  clusters: DemoCluster[];
  loadBalancers?: { cluster: string; pool?: string[] }[];
  /**
   * Chart directories the demo ships: `ripple up` serves them from its own chart repository on loopback, and
   * `{chartRepo}` in the demo's inline objects and explore commands becomes that repository's URL.
   */
  charts?: string[];
  /**
   * The demo receives CloudEvents: `ripple up` starts a NATS server (JetStream on) with this stream and its durable
   * consumer sveltos-agent, and `{natsUrl}` in the demo's inline objects and explore commands becomes its URL.
   */
  nats?: { stream: string; subjects: string[] };
  /** Applied before the steps (the management cluster's configuration, CRDs a cluster needs). */
  setup: Action[];
  steps: Step[];
  /** kubectl commands worth trying while it runs (`{dir}` is replaced by the data directory). */
  explore: string[];
  /** The same scenario from other seed documents, by seed number (`ripple up --demo NAME --seed NNN`). */
  variants?: Record<string, Variant>;
  /** Notes for the reader: what the demo deliberately leaves out and why. */
  notes?: string[];
}
