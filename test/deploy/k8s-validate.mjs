// Validates Kubernetes objects against the published OpenAPI schemas with kubernetes-models
// (and its Gateway API and Prometheus Operator packages). Those packages are ES modules only,
// which jest's CommonJS runtime cannot load, so chart.test.ts runs this file with node:
//   node test/deploy/k8s-validate.mjs < objects.json   →   [{object, error?}] on stdout
// An apiVersion/kind without a model is an error ("unknown kind"): nothing passes unchecked.
const MODULES = {
  'gateway.networking.k8s.io/v1': '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1',
  'monitoring.coreos.com/v1': '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
};

async function modelFor(apiVersion, kind) {
  const specifier = MODULES[apiVersion] ?? `kubernetes-models/${apiVersion}`;
  let module;
  try {
    module = await import(specifier);
  } catch {
    return undefined;
  }
  const model = module[kind];
  return typeof model === 'function' && model.apiVersion === apiVersion && model.kind === kind ? model : undefined;
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const object of JSON.parse(input)) {
  const name = `${object?.apiVersion}/${object?.kind} ${object?.metadata?.name}`;
  const Model = await modelFor(object?.apiVersion, object?.kind);
  if (!Model) {
    results.push({ object: name, error: `unknown kind: no schema for ${object?.apiVersion} ${object?.kind}` });
    continue;
  }
  try {
    new Model(object).validate();
    results.push({ object: name });
  } catch (err) {
    results.push({ object: name, error: String(err?.message ?? err) });
  }
}
process.stdout.write(JSON.stringify(results));
