// errors.ts: the one error class the helm component throws at its API edge. Messages are Helm v3.17's texts, so
// the CLI prints `Error: MESSAGE` exactly as `helm template` does.

/** HelmErrorCode says which stage failed. */
export type HelmErrorCode =
  | 'load' // the chart (Chart.yaml, values.yaml, archive, subchart) could not be loaded
  | 'values' // user values (files, --set) could not be parsed
  | 'dependencies' // dependencies declared in Chart.yaml are missing or invalid
  | 'schema' // values do not satisfy values.schema.json
  | 'render' // a template failed to parse or execute
  | 'manifest' // a rendered manifest is not valid YAML or not sortable
  | 'install'; // the chart cannot be installed as asked (library chart, kubeVersion, release name)

/**
 * HelmError is thrown by the helm API; `message` is Helm's text. `rendered` is true for errors after rendering
 * started (the helm CLI then adds its "Use --debug flag" hint).
 */
export class HelmError extends Error {
  override readonly name = 'HelmError';
  constructor(
    readonly code: HelmErrorCode,
    message: string,
    readonly rendered = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
