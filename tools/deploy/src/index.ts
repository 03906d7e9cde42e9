export {
  IMAGE_SERVICES,
  NO_ENGINE_HELP,
  containersConfFile,
  engineEnv,
  findDockerApi,
  findEngineCli,
  imageName,
  type DockerApi,
  type EngineCli,
  type ImageService,
} from './container-engine';
export { ensureHelm, type HelmTools } from './helm';
export { runTool, toolOutput, type ToolRun } from './run-tool';
export { renderK8sFiles, generatedFilesOnDisk } from './k8s-render';
