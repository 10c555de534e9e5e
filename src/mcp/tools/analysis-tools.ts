import { z } from 'zod';
import { invalid } from '../../domain/errors.js';
import { analysisModes, maxQuestions, splitQuestions } from '../../services/analysis-service.js';
import { mcpHints } from '../mcp-hints.js';
import { guarded, type ToolModule, textResult } from '../tool-kit.js';
import { projectOf, projectShape, strictInput } from './project-params.js';

const questionText = z.string().trim().min(1, 'must not be empty').max(2000);
const questionsShape = z.union([questionText, z.array(questionText).min(1).max(maxQuestions)]);

/** analyze_project: the same analysis as GET /api/analyze_project, with its parameters, answered as markdown. */
export const analysisTools: ToolModule = (server, context) => {
  server.registerTool(
    'analyze_project',
    {
      title: 'Analyze the papers of a project',
      description: `Asks one or more questions of EVERY paper in a project (its stored PDF, else its abstract) and returns a markdown table (paper × question; each cell quotes the answering sentence and cites its chunk) or, with analysis_mode "comprehensive", a synthesis per question. Use it to compare papers (methods, datasets, results) across a reading list. At most ${maxQuestions} questions. (\`questions\` and \`project\`, the old names of question and project_id, are still accepted.)`,
      inputSchema: strictInput({
        question: questionsShape
          .optional()
          .describe(
            'Required: the question, a list of questions, or one string with questions separated by commas.',
          ),
        ...projectShape,
        analysis_mode: z
          .enum(analysisModes, { error: 'analysis_mode must be tabular or comprehensive' })
          .default('tabular')
          .describe('tabular (default) or comprehensive.'),
        questions: questionsShape
          .optional()
          .meta({ deprecated: true })
          .describe('Deprecated: same as question.'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(context, async () => {
        const { question, questions, analysis_mode } = args;
        if (question !== undefined && questions !== undefined) {
          throw invalid('questions', 'questions is the old name of question; give question only');
        }
        const { ref } = projectOf(args);
        const result = await context.services.analysis.analyze(
          context.tenantId,
          { project: ref, questions: splitQuestions(question ?? questions ?? []), mode: analysis_mode },
          { signal: extra.signal, hints: mcpHints },
        );
        return textResult(`${result.markdown}\n\n${result.hint}`);
      }),
  );
};
