// `@kb/common/mongo` (moduleResolution node10 has no package.json `exports`): the MongoDB helpers, apart
// from the main entry so that the services without MongoDB never load mongoose.
module.exports = require('./dist/mongo/index.js');
