export { startBackends, type Backends, type BackendMode, type StartBackendsOptions } from './backends';
export {
  ensureArtifacts,
  ensureEmbeddingModel,
  ensureServiceNode,
  pinnedNode,
  ELASTICSEARCH_VERSION,
  MONGO_JAVA_SERVER_VERSION,
  type Artifacts,
  type EmbeddingModel,
  type PinnedNode,
} from './artifacts';
export { emptyIndices, rebuildIndices } from './index-check';
export { cacheDir, checkoutDir, checkoutKey, mkdirShared, runDir } from './cache';
export { assertPortFree, freePort, freePorts } from './ports';
export { groupMembers, procStat } from './process-group';
export { startElasticsearchCluster, type LocalCluster } from './elasticsearch-process';
export type { LocalBackend } from './local-backend';
export { SERVICES, startServices, type RunningServices, type ServiceName, type ServicesOptions } from './services';
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
export * from './demo';
