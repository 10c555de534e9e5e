// A process that imports a generated BibTeX file into a project of a SQLite store, for
// test/integration/import-kill.test.ts. It prints "filing" when the first entry reaches the store,
// "done" when the import returned; the test kills it in between.
import { createSqliteProjectStore } from '../../src/adapters/sqlite/sqlite-project-store.js';
import type { ProjectStore } from '../../src/ports/project-store.js';
import { CitationService } from '../../src/services/export/citation-service.js';
import { ProjectService } from '../../src/services/project-service.js';

const [path = '', entries = '1000'] = process.argv.slice(2);
const store = await createSqliteProjectStore(path);
let announced = false;
const announcing = new Proxy(store, {
  get(target, property, receiver) {
    const value = Reflect.get(target, property, receiver);
    if ((property === 'addEntry' || property === 'addEntries') && typeof value === 'function') {
      return (...args: unknown[]) => {
        if (!announced) {
          announced = true;
          process.stdout.write('filing\n');
        }
        return value.apply(target, args);
      };
    }
    return typeof value === 'function' ? value.bind(target) : value;
  },
}) as ProjectStore;
const projects = new ProjectService(announcing);
await projects.create('default', 'Imported');
const bibtex = Array.from(
  { length: Number(entries) },
  (_, index) =>
    `@article{e${index},\n  title = {Generated entry number ${index}},\n  author = {Writer, Ada and Reader, Ben},\n  journal = {Journal of Examples},\n  year = {2020},\n  volume = {${index}},\n  doi = {10.1000/generated.${index}}\n}`,
).join('\n');
process.stdout.write('parsing\n');
await new CitationService(projects).importIntoProject('default', 'Imported', bibtex, 'bibtex');
process.stdout.write('done\n');
await store.close();
