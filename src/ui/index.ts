// ui: the read-only web dashboard — fleet, EventSources and their matches, EventTriggers and what they generated,
// add-ons per cluster, failures first, event lineage (both directions) and plots, live from informer caches. Served
// on loopback by `ripple up` and `ripple manager --ui-port`. See README.md in this folder.
export { startUi, allowedHost, SECURITY_HEADERS, type UiOptions, type UiServer } from './server.js';
export { FleetModel, type ModelOptions } from './model.js';
export { upstreamLineage, downstreamLineage } from './lineage.js';
export { filterRows, parseQuery, type Filter } from './filter.js';
export { MetricsSampler, quantile } from './metrics.js';
export { buildBundle, type Bundle } from './bundle.js';
export * from './api-types.js';
