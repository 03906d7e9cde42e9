/** The admin CLI's entry point (`npm run admin -- …`; an image's `node …/main.js …`): runs it and exits with its code. */
import { main } from './cli';

void main(process.argv.slice(2)).then((code) => process.exit(code));
