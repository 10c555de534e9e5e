import { z } from 'zod';
import { analysisModes, maxQuestions, splitQuestions } from '../../services/analysis-service.js';
import { guarded, type ToolModule, textResult } from '../tool-kit.js';

/** analyze_project: the same analysis as GET /api/analyze_project, answered as markdown. */
export const analysisTools: ToolModule = (server, context) => {
  server.registerTool(
    'analyze_project',
    {
      title: 'Analyze the papers of a project',
      description: `Asks one or more questions of EVERY paper in a project (its stored PDF, else its abstract) and returns a markdown table (paper × question; each cell quotes the answering sentence and cites its chunk) or, with analysis_mode "comprehensive", a synthesis per question. Use it to compare papers (methods, datasets, results) across a reading list. At most ${maxQuestions} questions.`,
      inputSchema: {
        project_name: z
          .string()
          .trim()
          .min(1)
          .max(200)
          .optional()
          .describe('Project name or id; the default project "gpt" when omitted.'),
        questions: z
          .union([z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1).max(maxQuestions)])
          .describe('The questions: a list, or one string with questions separated by commas.'),
        analysis_mode: z
          .enum(analysisModes, { error: 'analysis_mode must be tabular or comprehensive' })
          .default('tabular')
          .describe('tabular (default) or comprehensive.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ project_name, questions, analysis_mode }, extra) =>
      guarded(context, async () => {
        const result = await context.services.analysis.analyze(
          context.tenantId,
          { project: project_name, questions: splitQuestions(questions), mode: analysis_mode },
          { signal: extra.signal },
        );
        return textResult(`${result.markdown}\n\n${result.hint}`);
      }),
  );
};
