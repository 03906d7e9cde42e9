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
export { ensureHelm, HELM_VERSION, KUBECTL_VERSION, type HelmTools } from './helm';
export { renderK8s, renderK8sFiles, generatedFilesOnDisk, K8S_GENERATED_DIRS, K8S_RELEASE } from './k8s-render';
