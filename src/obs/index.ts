// obs: observability plumbing shared by every component — structured logs (pino) and Prometheus metrics.
export { createLogger, silentLogger, type Logger, type LogOptions } from './logger.js';
export { EVENT_LOOP_SAMPLE_MS, createMetricsRegistry, serveMetrics, Registry } from './metrics.js';
