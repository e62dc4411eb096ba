// events: the event manager — EventTrigger × EventReport × cluster → instantiated ConfigMaps/Secrets and generated
// ClusterProfiles in the management cluster, withdrawn when the event goes away. See README.md in this folder.
export { EventError, type EventIssue, type EventIssueCode } from './errors.js';
export { decodeResourcesForTemplates } from './report-resources.js';
export { reportEvents, resourceEventId, cloudEventId, groupOf, type ReportEvent, type ReportEvents } from './report-events.js';
export { eventDataFields, EVENT_DATA_FIELDS } from './template-uses.js';
export { allEventsData, objectReference, oneEventData, type MatchedRef } from './template-data.js';
export { RippleAnnotations, generatedName, parseGoDuration, type ClusterIdentity } from './naming.js';
export {
  legacyEventFields,
  renderEvents,
  sourceKey,
  type GeneratedObject,
  type LegacyUse,
  type RenderContext,
  type RenderedEvent,
  type RenderResult,
  type SourceKind,
  type SourceLookup,
  type SourceObject,
  type TriggerView,
} from './render.js';
export { plan, profileReferences, type Action, type Plan, type PlanInput } from './plan.js';
export { findCollisions, type ExistingLookup } from './collisions.js';
export { triggerStatus, reportStatus, type ClusterInfoStatus, type PairResult } from './status.js';
export { eventMetrics, type EventMetrics } from './metrics.js';
export { startEventManager, type Clock, type EventManager, type EventManagerOptions } from './manager.js';
