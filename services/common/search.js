// `@kb/common/search` (moduleResolution node10 has no package.json `exports`): the search library,
// apart from the main entry so that the services without Elasticsearch never load its client.
module.exports = require('./dist/search/index.js');
