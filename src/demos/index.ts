// demos: the seed scenarios `ripple up --demo NAME` runs — data (clusters, the seed YAML applied where, user actions,
// expected outcomes) plus a runner that applies them like a user with kubectl and checks each outcome with its
// latency, and diagnostics for when an outcome does not happen.
export { DEMOS, demoVariant } from './catalog.js';
export { demoCharts } from './charts.js';
export { HTTPROUTE_CRD } from './gateway-api.js';
export { diagnose } from './diagnose.js';
export { formatMs, runDemo, subsetDiff, type DemoEnv, type DemoReport, type OutcomeResult, type RunOptions, type StepResult } from './runner.js';
export { SEEDS_DIR, SeedError, loadSeedDocs, pickSeed, seedRefText, type SeedDoc, type SeedRef } from './seeds.js';
export type { Action, Demo, DemoCluster, Expectation, ObjectRef, Objects, Step, Variant, Vars } from './types.js';
