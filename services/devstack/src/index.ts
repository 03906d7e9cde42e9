export { startBackends, type Backends, type BackendMode, type StartBackendsOptions } from './backends';
export {
  ensureArtifacts,
  ensureEmbeddingModel,
  ELASTICSEARCH_VERSION,
  MONGO_JAVA_SERVER_VERSION,
  type Artifacts,
  type EmbeddingModel,
} from './artifacts';
export { cacheDir, checkoutDir, checkoutKey, runDir } from './cache';
export { assertPortFree, freePort } from './ports';
export {
  readRunState,
  readStartState,
  reapStale,
  runStatePath,
  writeRunState,
  ownerAlive,
  type RunState,
  type TrackedProcess,
} from './state';
export { dockerEngineAnswers } from './testcontainers-backends';
export type { Log } from './log';
export {
  IMAGE_SERVICES,
  NO_ENGINE_HELP,
  findDockerApi,
  findEngineCli,
  imageName,
  type DockerApi,
  type ImageService,
} from './container-engine';
export { ensureHelm } from './helm';
export { runTool, toolOutput, type ToolRun } from './run-tool';
export { renderK8sFiles, generatedFilesOnDisk } from './k8s-render';
