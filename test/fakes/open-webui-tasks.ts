/**
 * The task prompts Open WebUI sends to the chat endpoint of the model a chat uses (backend
 * `open_webui/config.py` DEFAULT_*_PROMPT_TEMPLATE, rendered by `utils/task.py`): one user message,
 * `stream: false`, the chat history quoted as `USER: …` / `ASSISTANT: …` lines. Title generation
 * also sends `max_completion_tokens: 1000` (`max_tokens` to Ollama) and a `metadata` object.
 * Reproduced here as the requests a real Open WebUI makes, to test that they start no literature run.
 */

type Turn = { role: 'user' | 'assistant'; content: string };

/** `{{MESSAGES:END:n}}` as Open WebUI renders it (`get_messages_content`). */
export function renderHistory(turns: Turn[], last: number): string {
  return turns
    .slice(-last)
    .map((turn) => `${turn.role.toUpperCase()}: ${turn.content}`)
    .join('\n');
}

/** Title generation, Open WebUI 0.5–0.6 (with an emoji). */
export function titlePromptWithEmoji(turns: Turn[]): string {
  return `### Task:
Generate a concise, 3-5 word title with an emoji summarizing the chat history.
### Guidelines:
- The title should clearly represent the main theme or subject of the conversation.
- Use emojis that enhance understanding of the topic, but avoid quotation marks or special formatting.
- Write the title in the chat's primary language; default to English if multilingual.
- Prioritize accuracy over excessive creativity; keep it clear and simple.
- Your entire response must consist solely of the JSON object, without any introductory or concluding text.
- The output must be a single, raw JSON object, without any markdown code fences or other encapsulating text.
- Ensure no conversational text, affirmations, or explanations precede or follow the raw JSON output, as this will cause direct parsing failure.
### Output:
JSON format: { "title": "your concise title here" }
### Examples:
- { "title": "📉 Stock Market Trends" },
- { "title": "🍪 Perfect Chocolate Chip Recipe" },
- { "title": "Evolution of Music Streaming" },
- { "title": "Remote Work Productivity Tips" },
- { "title": "Artificial Intelligence in Healthcare" },
- { "title": "🎮 Video Game Development Insights" }
### Chat History:
<chat_history>
${renderHistory(turns, 2)}
</chat_history>`;
}

/** Title generation, newer Open WebUI (no emoji, 2–4 words). */
export function titlePrompt(turns: Turn[]): string {
  return `### Task:
Generate a concise title summarizing the chat history.
### Guidelines:
- The title should clearly represent the main theme or subject of the conversation.
- Keep it short: 2-4 words is best.
- Do not use emojis, quotation marks, or special formatting.
- Write the title in the chat's primary language; default to English if multilingual.
- Prioritize accuracy over creativity.
- Your entire response must consist solely of the JSON object, without any introductory or concluding text.
- The output must be a single, raw JSON object, without any markdown code fences or other encapsulating text.
- Ensure no conversational text, affirmations, or explanations precede or follow the raw JSON output, as this will cause direct parsing failure.
### Output:
JSON format: { "title": "your concise title here" }
### Examples:
- { "title": "Stock Trends" },
- { "title": "Chocolate Chip Cookies" },
- { "title": "Music Streaming" },
- { "title": "Remote Work" }
### Chat History:
<chat_history>
${renderHistory(turns, 2)}
</chat_history>`;
}

export function tagsPrompt(turns: Turn[]): string {
  return `### Task:
Generate 1-3 broad tags categorizing the main themes of the chat history, along with 1-3 more specific subtopic tags.

### Guidelines:
- Start with high-level domains (e.g. Science, Technology, Philosophy, Arts, Politics, Business, Health, Sports, Entertainment, Education)
- Consider including relevant subfields/subdomains if they are strongly represented throughout the conversation
- If content is too short (less than 3 messages) or too diverse, use only ["General"]
- Use the chat's primary language; default to English if multilingual
- Prioritize accuracy over specificity

### Output:
JSON format: { "tags": ["tag1", "tag2", "tag3"] }

### Chat History:
<chat_history>
${renderHistory(turns, 6)}
</chat_history>`;
}

export function followUpPrompt(turns: Turn[]): string {
  return `### Task:
Suggest 3-5 relevant follow-up questions or prompts that the user might naturally ask next in this conversation as a **user**, based on the chat history, to help continue or deepen the discussion.
### Guidelines:
- Write all follow-up questions from the user's point of view, directed to the assistant.
- Make questions concise, clear, and directly related to the discussed topic(s).
- Only suggest follow-ups that make sense given the chat history and the assistant's last response.
- Match the conversational tone and style of the existing chat.
- Use the chat's primary language; default to English if multilingual.
- Avoid repeating questions already asked or answered in the chat history.
- If the conversation is concluded or no relevant follow-ups exist, return an empty list.
### Output:
JSON format: { "follow_ups": ["Question 1?", "Question 2?", "Question 3?"] }
### Chat History:
<chat_history>
${renderHistory(turns, 6)}
</chat_history>`;
}

export function queryPrompt(turns: Turn[], today = '2026-11-27'): string {
  return `### Task:
Analyze the chat history to determine the necessity of generating search queries, in the given language. By default, **prioritize generating 1-3 broad and relevant search queries** unless it is absolutely certain that no additional information is required. The aim is to retrieve comprehensive, updated, and valuable information even with minimal uncertainty. If no search is unequivocally needed, return an empty list.

### Guidelines:
- Respond **EXCLUSIVELY** with a JSON object. Any form of extra commentary, explanation, or additional text is strictly prohibited.
- When generating search queries, respond in the format: { "queries": ["query1", "query2"] }, ensuring each query is distinct, concise, and relevant to the topic.
- If and only if it is entirely certain that no useful results can be retrieved by a search, return: { "queries": [] }.
- Err on the side of suggesting search queries if there is **any chance** they might provide useful or updated information.
- Be concise and focused on composing high-quality search queries, avoiding unnecessary elaboration, commentary, or assumptions.
- Today's date is: ${today}.
- Always prioritize providing actionable and broad queries that maximize informational coverage.

### Output:
Strictly return in JSON format: 
{
  "queries": ["query1", "query2"]
}

### Chat History:
<chat_history>
${renderHistory(turns, 6)}
</chat_history>
`;
}

export function autocompletePrompt(turns: Turn[], text: string): string {
  return `### Task:
You are an autocompletion system. Continue the text in \`<text>\` based on the **completion type** in \`<type>\` and the given language.  

### **Instructions**:
1. Analyze \`<text>\` for context and meaning.  
2. Use \`<type>\` to guide your output:  
   - **General**: Provide a natural, concise continuation.  
   - **Search Query**: Complete as if generating a realistic search query.  
3. Start as if you are directly continuing \`<text>\`. Do **not** repeat, paraphrase, or respond as a model. Simply complete the text.  
4. Ensure the continuation:
   - Flows naturally from \`<text>\`.  
   - Avoids repetition, overexplaining, or unrelated ideas.  
5. If unsure, return: \`{ "text": "" }\`.  

### **Output Rules**:
- Respond only in JSON format: \`{ "text": "<your_completion>" }\`.

---
### Context:
<chat_history>
${renderHistory(turns, 6)}
</chat_history>
<type>General</type>  
<text>${text}</text>  
#### Output:
`;
}
