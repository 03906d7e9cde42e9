// The site use cases, one file each.
export { listSites, getSite } from './read';
export { createSite } from './create';
export { updateSite, siteChanges } from './update';
export { deleteSite } from './delete';
