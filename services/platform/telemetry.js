// `@kb/platform/telemetry`: the OpenTelemetry preload every service process starts with
// (`node --require @kb/platform/telemetry main.js`; the images run it so). A file beside
// package.json because moduleResolution node10 has no package.json `exports`.
require('./dist/telemetry.js');
