import { z } from 'zod';
import { booleanText, envVar } from '../env-var.js';

/** The web UI served at `/` (built by `npm run build` into web/dist). */
export const webSection = {
  enabled: envVar('ALEXANDRIA_WEB_UI', booleanText, {
    default: 'true',
    description: 'Serve the web UI at / (false: API only).',
  }),
  dir: envVar('ALEXANDRIA_WEB_DIR', z.string().min(1).optional(), {
    description: 'Folder of the built web UI. Default: web/dist of this installation.',
  }),
};
