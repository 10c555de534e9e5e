import { authSection } from './auth.js';
import { chatSection } from './chat.js';
import { cpuSection } from './cpu.js';
import { databaseSection } from './database.js';
import { documentsSection } from './documents.js';
import { embeddingSection } from './embedding.js';
import { heavySection } from './heavy.js';
import { jobsSection } from './jobs.js';
import { mcpSection } from './mcp.js';
import { pdfSection } from './pdf.js';
import { searchSection } from './search.js';
import { serverSection } from './server.js';
import { sourcesSection } from './sources.js';
import { storageSection } from './storage.js';
import { webSection } from './web.js';
import { zoteroSection } from './zotero.js';

/**
 * Every configuration section. A capability adds its own section file and one line here; the loader,
 * `alexandria config` and the `.env.example` check pick it up from this object.
 */
export const sections = {
  server: serverSection,
  cpu: cpuSection,
  auth: authSection,
  storage: storageSection,
  database: databaseSection,
  jobs: jobsSection,
  documents: documentsSection,
  heavy: heavySection,
  pdf: pdfSection,
  embedding: embeddingSection,
  mcp: mcpSection,
  zotero: zoteroSection,
  web: webSection,
  chat: chatSection,
  sources: sourcesSection,
  search: searchSection,
};
