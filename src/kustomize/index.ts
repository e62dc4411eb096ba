// kustomize: Kustomize v5.5.0 builds (kubectl 1.32's `kubectl kustomize`), pure — the file tree is handed in.
export { buildKustomization, type BuildOptions, type BuildResult } from './build.js';
export { KustomizeError, type KustomizeErrorCode } from './errors.js';
export { mapFileTree, type FileTree } from './filesys.js';
export { readTarball, type TarballLimits } from './tarball.js';
