import { analysisRoutes } from './analysis-routes.js';
import { chatRoutes } from './chat-routes.js';
import { citationRoutes } from './citation-routes.js';
import { documentRoutes } from './document-routes.js';
import { figureRoutes } from './figure-routes.js';
import { fullTextRoutes } from './fulltext-routes.js';
import { libraryRoutes } from './library-routes.js';
import { mcpRoutes } from './mcp-routes.js';
import { pageImageRoutes } from './page-image-routes.js';
import { paperRoutes } from './paper-routes.js';
import { projectRoutes } from './project-routes.js';
import { referenceRoutes } from './reference-routes.js';
import type { RouteModule } from './route-context.js';
import { searchRoutes } from './search-routes.js';
import { systemRoutes } from './system-routes.js';
import { webRoutes } from './web-routes.js';
import { zoteroRoutes } from './zotero-routes.js';

/** Every route module, in registration order. A capability adds its module here. */
export const routeModules: RouteModule[] = [
  systemRoutes,
  projectRoutes,
  documentRoutes,
  searchRoutes,
  paperRoutes,
  citationRoutes,
  referenceRoutes,
  analysisRoutes,
  zoteroRoutes,
  mcpRoutes,
  webRoutes,
  chatRoutes,
  fullTextRoutes,
  pageImageRoutes,
  libraryRoutes,
  figureRoutes,
];
