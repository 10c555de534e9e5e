#!/usr/bin/env python3
"""Builds test/fixtures/follow-ups/pairs.jsonl: labelled turn pairs for the follow-up decision
(`npm run eval -- follow-ups`, decision 0047).

Usage: python3 scripts/build-follow-ups.py ../shared/data > test/fixtures/follow-ups/pairs.jsonl

Rows: {id, previous, message, followUp, kind, source, split}. followUp: whether `message` can only
be understood against `previous` (true) or stands alone (false). kind: switch (a new topic),
pronoun (a new question whose own words name its topic although it has "it"/"they"), same-topic (a
complete question on the previous topic), followup (elliptic, or pointing at the previous answer).
split: fixed before any measuring: "tuning" when the first byte of sha256(id) is below 102 (about
40 %), else "report". Rules may be changed looking at tuning rows only; figures are quoted on report
rows.

Sources: PubMedQA expert-labelled questions (MIT), question text only; pairs, follow-ups and
computer-science questions written for this project (Apache-2.0).
"""
import hashlib
import json
import sys

root = sys.argv[1]
rows = []


def add(id_, previous, message, follow_up, kind, source):
    split = 'tuning' if hashlib.sha256(id_.encode()).digest()[0] < 102 else 'report'
    rows.append({'id': id_, 'previous': previous, 'message': message, 'followUp': follow_up,
                 'kind': kind, 'source': source, 'split': split})


with open(f'{root}/eval/pubmedqa/pubmedqa_pqal.jsonl') as handle:
    pubmed = [json.loads(line) for line in handle]

written_questions = [
    'Which DNA topology does Dps condense fastest?',
    'What tools exist for collaborative text annotation, and how do they differ?',
    'Is BERT fine-tuning unstable on small datasets?',
    'Can you find recent papers on retrieval-augmented generation?',
    'How do graph neural networks handle heterophilous graphs?',
    'Which datasets are used to evaluate open-domain question answering?',
    'Does dropout improve calibration of deep networks?',
    'What are the main approaches to protein structure prediction?',
    'How is perplexity used to evaluate language models?',
    'Summarise the evidence on intermittent fasting and weight loss.',
    'What causes catastrophic forgetting in continual learning?',
    'Are vision transformers more robust to adversarial examples than CNNs?',
    'Which metrics correlate best with human judgements of summary quality?',
    'How does CRISPR-Cas9 recognise its target sequence?',
    'What is known about microplastics in drinking water?',
    'List papers on federated learning with differential privacy.',
    'Does metformin reduce cancer incidence in diabetic patients?',
    'How are knowledge graphs built from scientific literature?',
    'What limits the efficiency of perovskite solar cells?',
    'Which sampling strategies reduce hallucination in text generation?',
]

# Topic switches: the previous question and the new one share no topic (80 pairs).
for index in range(60):
    previous = pubmed[(index * 11) % len(pubmed)]
    message = pubmed[(index * 11 + 337) % len(pubmed)]
    add(f'switch:{previous["id"]}:{message["id"]}', previous['question'], message['question'], False, 'switch', 'pubmedqa')
for index, message in enumerate(written_questions):
    previous = written_questions[(index + 7) % len(written_questions)]
    add(f'switch:written:{index}', previous, message, False, 'switch', 'written')

# New questions with a pronoun whose antecedent is in the question itself ("X: is it Y?"): every
# PubMedQA question with it/they/this/their…, except four whose topic is only the pronoun.
pronoun_only = {'pubmedqa:11570976', 'pubmedqa:18359123', 'pubmedqa:29112560', 'pubmedqa:24160268'}
import re
pronoun = re.compile(r'\b(they|them|their|it|its|this|these|those)\b', re.I)
chosen = [item for item in pubmed if pronoun.search(item['question']) and item['id'] not in pronoun_only]
for index, item in enumerate(chosen):
    previous = pubmed[(index * 17 + 101) % len(pubmed)]
    add(f'pronoun:{previous["id"]}:{item["id"]}', previous['question'], item['question'], False, 'pronoun', 'pubmedqa')
written_pronoun = [
    ('Which DNA topology does Dps condense fastest?', 'What tools exist for collaborative text annotation, and how do they differ?'),
    ('Which DNA topology does Dps condense fastest?', 'Which annotation tools support several annotators at once, and what do they cost?'),
    ('Is BERT fine-tuning unstable on small datasets?', 'Graph neural networks: are they better than transformers on molecule property prediction?'),
    ('What are the main approaches to protein structure prediction?', 'Large language models for code: how well do they repair bugs?'),
    ('Does dropout improve calibration of deep networks?', 'Mixture-of-experts models: how do they route tokens to experts?'),
    ('How is perplexity used to evaluate language models?', 'What are sparse autoencoders and what do they reveal about neural network features?'),
    ('What causes catastrophic forgetting in continual learning?', 'Statins in elderly patients: do they prevent a first heart attack?'),
    ('Does metformin reduce cancer incidence in diabetic patients?', 'Knowledge distillation: does it work for speech recognition models?'),
    ('Which metrics correlate best with human judgements of summary quality?', 'Is retrieval augmentation worth it for small language models?'),
    ('How does CRISPR-Cas9 recognise its target sequence?', 'Contrastive learning for sentence embeddings: why does it need hard negatives?'),
    ('What is known about microplastics in drinking water?', 'How do diffusion models generate images, and why are they slow to sample?'),
    ('List papers on federated learning with differential privacy.', 'Do probiotics shorten antibiotic-associated diarrhoea, and are they safe in infants?'),
    ('What limits the efficiency of perovskite solar cells?', 'Which vaccines against malaria exist and how effective are they?'),
    ('Which sampling strategies reduce hallucination in text generation?', 'Tokenizers for multilingual models: how do they affect low-resource languages?'),
    ('How are knowledge graphs built from scientific literature?', 'What is the lottery ticket hypothesis and does it hold for large networks?'),
    ('Are vision transformers more robust to adversarial examples than CNNs?', 'Find papers on wastewater surveillance of SARS-CoV-2 and what it adds to case counts.'),
    ('Summarise the evidence on intermittent fasting and weight loss.', 'Beta blockers after myocardial infarction: are they still needed when the ejection fraction is normal?'),
    ('How do graph neural networks handle heterophilous graphs?', 'What is speculative decoding, and how much does it speed up inference?'),
    ('Which datasets are used to evaluate open-domain question answering?', 'Gut microbiome and depression: what links them?'),
    ('Does dropout improve calibration of deep networks?', 'Citation recommendation systems: how are they evaluated?'),
]
for index, (previous, message) in enumerate(written_pronoun):
    add(f'pronoun:written:{index}', previous, message, False, 'pronoun', 'written')

# Complete questions on the previous question's topic: related, but understood without it.
same_topic = [
    ('Which DNA topology does Dps condense fastest?', 'Does Dps protect DNA from oxidative damage?'),
    ('Is BERT fine-tuning unstable on small datasets?', 'Which random seeds and learning rates make BERT fine-tuning stable?'),
    ('Can you find recent papers on retrieval-augmented generation?', 'How is retrieval-augmented generation evaluated?'),
    ('How do graph neural networks handle heterophilous graphs?', 'Do graph neural networks suffer from over-smoothing with many layers?'),
    ('Which datasets are used to evaluate open-domain question answering?', 'How large is the Natural Questions dataset?'),
    ('Does dropout improve calibration of deep networks?', 'Does temperature scaling calibrate deep networks better than dropout?'),
    ('What are the main approaches to protein structure prediction?', 'How accurate is AlphaFold on membrane proteins?'),
    ('Summarise the evidence on intermittent fasting and weight loss.', 'Does intermittent fasting change insulin sensitivity?'),
    ('What causes catastrophic forgetting in continual learning?', 'Does experience replay prevent catastrophic forgetting?'),
    ('Are vision transformers more robust to adversarial examples than CNNs?', 'How are vision transformers attacked with adversarial patches?'),
    ('How does CRISPR-Cas9 recognise its target sequence?', 'What causes off-target edits by CRISPR-Cas9?'),
    ('What is known about microplastics in drinking water?', 'Do microplastics accumulate in human tissue?'),
    ('Does metformin reduce cancer incidence in diabetic patients?', 'Does metformin slow ageing in non-diabetic adults?'),
    ('List papers on federated learning with differential privacy.', 'How much accuracy does differential privacy cost in federated learning?'),
    ('What limits the efficiency of perovskite solar cells?', 'How stable are perovskite solar cells in humid air?'),
    ('Which sampling strategies reduce hallucination in text generation?', 'Does nucleus sampling reduce repetition in generated text?'),
    ('How is perplexity used to evaluate language models?', 'Does lower perplexity predict better downstream accuracy of language models?'),
    ('Which metrics correlate best with human judgements of summary quality?', 'Is ROUGE a reliable metric for abstractive summarisation?'),
    ('How are knowledge graphs built from scientific literature?', 'Which relation extraction models are used to build knowledge graphs from papers?'),
    ('What tools exist for collaborative text annotation, and how do they differ?', 'Is BRAT still maintained as an annotation tool?'),
]
for index, (previous, message) in enumerate(same_topic):
    add(f'same:written:{index}', previous, message, False, 'same-topic', 'written')

# Follow-ups: elliptic messages and messages pointing at the previous answer; each is paired with
# the question it was written after.
follow_ups = [
    ('Which DNA topology does Dps condense fastest?', 'And in vivo?'),
    ('Which DNA topology does Dps condense fastest?', 'What about the second one?'),
    ('Which DNA topology does Dps condense fastest?', 'Why?'),
    ('Is BERT fine-tuning unstable on small datasets?', 'What about RoBERTa?'),
    ('Is BERT fine-tuning unstable on small datasets?', 'How did they fix it?'),
    ('Is BERT fine-tuning unstable on small datasets?', 'Which of these papers used more than ten random seeds?'),
    ('Can you find recent papers on retrieval-augmented generation?', 'Summarise the first one.'),
    ('Can you find recent papers on retrieval-augmented generation?', 'Which of them report results on Natural Questions?'),
    ('Can you find recent papers on retrieval-augmented generation?', 'Any from 2024?'),
    ('How do graph neural networks handle heterophilous graphs?', 'Can you give an example?'),
    ('How do graph neural networks handle heterophilous graphs?', 'What datasets evaluate them?'),
    ('Which datasets are used to evaluate open-domain question answering?', 'How big are they?'),
    ('Which datasets are used to evaluate open-domain question answering?', 'Which one is the hardest?'),
    ('Does dropout improve calibration of deep networks?', 'And for transformers?'),
    ('Does dropout improve calibration of deep networks?', 'Is that also true for small networks?'),
    ('What are the main approaches to protein structure prediction?', 'Which is the most accurate?'),
    ('What are the main approaches to protein structure prediction?', 'Compare the last two.'),
    ('How is perplexity used to evaluate language models?', 'What are its limitations?'),
    ('Summarise the evidence on intermittent fasting and weight loss.', 'What about in older adults?'),
    ('Summarise the evidence on intermittent fasting and weight loss.', 'How long did those trials last?'),
    ('What causes catastrophic forgetting in continual learning?', 'How can it be prevented?'),
    ('What causes catastrophic forgetting in continual learning?', 'Tell me more about the third paper.'),
    ('Are vision transformers more robust to adversarial examples than CNNs?', 'Why is that?'),
    ('Are vision transformers more robust to adversarial examples than CNNs?', 'Even under black-box attacks?'),
    ('Which metrics correlate best with human judgements of summary quality?', 'And for machine translation?'),
    ('How does CRISPR-Cas9 recognise its target sequence?', 'Explain that more simply.'),
    ('How does CRISPR-Cas9 recognise its target sequence?', 'Who discovered this?'),
    ('What is known about microplastics in drinking water?', 'Is bottled water worse?'),
    ('What is known about microplastics in drinking water?', 'Where were these samples taken?'),
    ('List papers on federated learning with differential privacy.', 'Only the ones with code, please.'),
    ('List papers on federated learning with differential privacy.', 'Save the second one to my project.'),
    ('Does metformin reduce cancer incidence in diabetic patients?', 'In which cancers?'),
    ('Does metformin reduce cancer incidence in diabetic patients?', 'What doses were used?'),
    ('How are knowledge graphs built from scientific literature?', 'Which of those approaches needs the least labelled data?'),
    ('What limits the efficiency of perovskite solar cells?', 'How could that be improved?'),
    ('Which sampling strategies reduce hallucination in text generation?', 'Does it depend on model size?'),
    ('Which sampling strategies reduce hallucination in text generation?', 'Which one would you recommend?'),
    ('What tools exist for collaborative text annotation, and how do they differ?', 'Which of them is open source?'),
    ('What tools exist for collaborative text annotation, and how do they differ?', 'Who wrote the first one?'),
    ('What tools exist for collaborative text annotation, and how do they differ?', 'Can they export to CoNLL format?'),
]
# The same kinds written after PubMedQA questions.
pubmed_follow_ups = [
    'And in children?', 'What about women?', 'Why?', 'How was that measured?', 'How many patients were included?',
    'Were these randomised trials?', 'What about the second study?', 'Is it also true in older patients?',
    'Summarise the first paper.', 'And after five years?', 'What were the side effects?', 'Which study was the largest?',
    'How strong is that evidence?', 'Can you explain the methods they used?', 'What about in mice?',
    'Same question for adolescents.', 'Any newer studies?', 'Does that hold in Asia too?', 'And the mortality?',
    'Who funded these studies?', 'What did the authors conclude?', 'How does this compare with surgery?',
    'Tell me more.', 'In what setting?', 'How long was the follow-up?', 'Is this recommended in guidelines?',
    'What were the limitations of those studies?', 'Which one had the best design?', 'Really?',
    'What was the sample size of the last one?', 'How about at lower doses?', 'And compared with placebo?',
    'Could you go into more detail?', 'What does the latter paper say?', 'Give me the abstract of the third one.',
    'How were the controls chosen?', 'Why did they exclude smokers?', 'What was the p-value?',
    'Is there a meta-analysis of this?', 'What about cost?', 'For how long?', 'Any contradicting evidence?',
    'How reliable are these results?', 'Does it differ by sex?', 'Were they blinded?',
    'And what about the long-term effects?', 'What would you conclude?', 'Any reviews?', 'More details on the second, please.',
    'What did they measure exactly?', 'Where was it done?', 'Was this replicated?', 'Which journal published it?',
    'How were the patients selected?', 'Is it safe?', 'And during pregnancy?', 'What about the other one?',
    'Why not?', 'Can you list them?', 'Which of these is most cited?',
]
for index, (previous, message) in enumerate(follow_ups):
    add(f'followup:written:{index}', previous, message, True, 'followup', 'written')
for index, message in enumerate(pubmed_follow_ups):
    previous = pubmed[(index * 23 + 5) % len(pubmed)]
    add(f'followup:{previous["id"]}:{index}', previous['question'], message, True, 'followup', 'pubmedqa+written')

seen = set()
for row in rows:
    assert row['id'] not in seen, row['id']
    seen.add(row['id'])
    print(json.dumps(row, ensure_ascii=False))
