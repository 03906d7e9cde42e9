// The site use cases live in ./sites/ (one file each); this module keeps the import path.
export { listSites, getSite } from './sites/read';
export { createSite } from './sites/create';
export { updateSite, siteChanges } from './sites/update';
export { deleteSite } from './sites/delete';
