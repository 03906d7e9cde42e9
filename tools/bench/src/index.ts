// The benchmark's parts that `npm run eval` (tools/eval) reuses. Running the benchmark is
// `npm run bench` (main.ts); nothing here starts it.
export { Api, HttpError } from './http';
export { BareSession, type Pooling } from './onnx';
export { catalogue, type BenchProduct } from './catalogue';
export { servicesOn } from './report';
export { startBenchStack, TENANT, type BenchStack } from './stack';
