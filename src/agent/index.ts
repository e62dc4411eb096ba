// agent: watch-driven EventSource detection in managed clusters and EventReport delivery to the management cluster
// (agentless in-process agents, in-cluster agents pushing reports, and a management-side collector). See README.md.
export {
  EVENT_REPORT,
  EVALUATION_FAILURE_ANNOTATION,
  MANAGED_FAILURE_FIELD,
  ResourceDecodeError,
  buildManagedReport,
  buildManagementReport,
  contentFromManagedReport,
  sameContent,
  decodeEventReportResources,
  encodeEventReportResources,
  encodeResourceDocument,
  managementReportLabels,
  managementReportName,
  objectReferenceOf,
  splitEventReportResources,
  splitEventReportText,
  type ClusterIdentity,
  type ReportContent,
  type ReportObject,
} from './report.js';
export { goJSONMarshal } from './go-json.js';
export { ClusterDetector, formatDiagnostic, type DetectorHealth, type DetectorOptions, type ReportUpdate } from './detector.js';
export { FIELD_MANAGER, PHASE_WAITING, ReportWriter, planReport, reportDiffers, type DesiredReport, type ReportAction, type ReportWriterOptions } from './writer.js';
export { EventSourceNameRenderer, computeNeeds, type ClusterNeeds, type NeedsProblem, type NeedsResult, type TriggerView } from './needs.js';
export { OWNER_TRIGGERS_ANNOTATION, buildEventSourceCopy, planDistribution, type DistributionAction, type EventSourceCopy } from './distribution.js';
export { DELIVERY_MODES, startAgentManager, type AgentManager, type AgentManagerOptions, type DeliveryMode } from './manager.js';
export { AGENT_FIELD_MANAGER, AGENT_NAME, agentManifests, applyAgent, type AgentDeployment } from './deploy.js';
export { startClusterAgent, type ClusterAgent, type ClusterAgentOptions } from './cluster-agent.js';
export { agentMetrics, type AgentMetrics } from './metrics.js';
export { EVENT_SOURCE, EVENT_TRIGGER, EVENT_BASED_ADDON } from './sources.js';
export { CloudEventSubscriber, publishCloudEvent, type PublishTarget } from './nats.js';
export {
  JETSTREAM_CONSUMER,
  NATS_SECRET,
  compileCriteria,
  decodeCloudEvent,
  encodeCloudEvent,
  matchesCriteria,
  parseNatsSettings,
  subjectMatches,
  subjectProblem,
  type CloudEvent,
  type MessagingMatchCriteria,
  type NatsSettings,
} from './cloudevents.js';
export { CLOUDEVENTS_FIELD_MANAGER } from './cloudevent-sink.js';
export { PULL_FIELD_MANAGER, parseBundleResource, startPullAgent, type PullAgent, type PullAgentOptions } from './pull-agent.js';
