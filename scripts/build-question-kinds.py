#!/usr/bin/env python3
"""Builds test/fixtures/question-kinds/questions.jsonl: labelled questions for the verdict
classifier (`npm run eval -- verdict-classifier`, decision 0047).

Usage: python3 scripts/build-question-kinds.py ../shared/data > test/fixtures/question-kinds/questions.jsonl

Rows: {id, text, kind, verdict, source, split}. kind: yesno | open | request | choice.
verdict: whether the message asks for a verdict (an answer that opens with yes, no or maybe).
split: fixed before any measuring: "tuning" when the first byte of sha256(id) is below 102
(about 40 %), else "report". Rules may be changed looking at tuning rows only; figures are
quoted on report rows.

Sources (all redistributable here): PubMedQA expert-labelled questions (MIT; every one is a
yes/no/maybe question by construction), QASA unanswerable questions (MIT; labelled by hand below),
and questions written for this project (Apache-2.0, like the repository).
"""
import hashlib
import json
import re
import sys

root = sys.argv[1]
rows = []


def add(id_, text, kind, verdict, source):
    split = 'tuning' if hashlib.sha256(id_.encode()).digest()[0] < 102 else 'report'
    rows.append({'id': id_, 'text': text, 'kind': kind, 'verdict': verdict, 'source': source, 'split': split})


# PubMedQA: every 4th of the 667 expert-labelled items, in file order (167 questions).
with open(f'{root}/eval/pubmedqa/pubmedqa_pqal.jsonl') as handle:
    for index, line in enumerate(handle):
        if index % 4 == 0:
            item = json.loads(line)
            add(item['id'], item['question'], 'yesno', True, 'pubmedqa')

# QASA: all 163 questions. Those that open with a wh-word are open questions; the others were read
# and labelled one by one (ids below: asks whether something holds, so a verdict fits).
qasa_verdict = {
    0, 102, 108, 109, 110, 111, 121, 147, 154, 155, 161, 167, 17, 172, 177, 194, 199, 205, 208, 22,
    221, 226, 234, 240, 26, 36, 39, 43, 46, 49, 50, 53, 7, 89, 95, 97,
}
qasa_request = {181, 76, 81, 83, 90, 92}
with open(f'{root}/eval/qasa/qasa_unanswerable.jsonl') as handle:
    for line in handle:
        item = json.loads(line)
        number = int(item['id'].split(':')[1])
        text = item['question'].strip()
        if number in qasa_verdict:
            add(item['id'], text, 'yesno', True, 'qasa')
        elif number in qasa_request:
            add(item['id'], text, 'request', False, 'qasa')
        else:
            add(item['id'], text, 'open', False, 'qasa')

# Written for this project.
written = {
    'request': [
        'Can you find recent papers on retrieval-augmented generation?',
        'Could you find studies on sleep deprivation and memory consolidation?',
        'Can you list the main benchmarks for code generation?',
        'Could you summarise what is known about microplastics in drinking water?',
        'Would you compile papers comparing LoRA with full fine-tuning?',
        'Can you show me work on graph neural networks for molecule property prediction?',
        'Find papers about contrastive learning for sentence embeddings.',
        'List datasets used for abstractive summarisation of scientific articles.',
        'Summarise the evidence on intermittent fasting and weight loss.',
        'Please give me an overview of approaches to hallucination detection in language models.',
        "I'm looking for papers on federated learning with differential privacy.",
        'Show me recent work on protein structure prediction after AlphaFold2.',
        'Give me three papers that introduce tokenisation methods for multilingual models.',
        'Recommend a survey on reinforcement learning from human feedback.',
        'Search for articles on CRISPR off-target effects.',
        'Collect the papers in my library that discuss BERT probing.',
        'Are there any papers on speech recognition for low-resource African languages?',
        'Is there any recent work on evaluating the factual consistency of summaries?',
        'Are there datasets for Korean legal question answering?',
        'Is there a survey of neural topic models?',
        'Do you know any studies on the effect of noise on open-plan office productivity?',
        'Could you point me to the original paper on dropout?',
        'Can you help me find benchmarks for table question answering?',
        'Would you list the known failure modes of beam search?',
        'Can I get a summary of the Dps DNA condensation paper?',
        'Please summarise the PaSa paper in five bullet points.',
        'Compare the annotation tools described in these papers.',
        'Explain how ColBERT computes relevance scores.',
        'Tell me about methods for detecting machine-generated text.',
        'Outline the history of word embeddings from word2vec to contextual models.',
        'I need references on the use of transformers for time-series forecasting.',
        'Could you give me the key findings of studies on remote work and productivity?',
        'Can you search my projects for papers about citation recommendation?',
        'Will you add the glucokinase variant paper to my reading list?',
        'Can you save these papers to my project?',
        'Do you have anything on quantum error correction with surface codes?',
        'Are there other studies like this one?',
        'Is there any literature on the reproducibility of NLP experiments?',
        'Can you describe the datasets used to evaluate dialogue state tracking?',
        'Could you explain the difference between BM25 and dense retrieval?',
        'Would you mind finding papers on curriculum learning for machine translation?',
        'Find me evidence about vitamin D supplementation and respiratory infections.',
        'Can you recommend papers that critique the BLEU metric?',
        'Please list open-source implementations of retrieval-augmented generation.',
        'Summarise these two points for my review:\nA. Transformers scale with data.\nB. Recurrent networks struggle with long contexts.',
        'My outline:\nA. Background\nB. Methods\nC. Results\nCan you find papers for section B?',
        'Compare the following methods:\nA. BM25\nB. SPLADE\nC. ColBERT',
        'Give an overview of evaluation metrics for machine translation, with citations.',
        'Get me the abstract of the CiteSee paper.',
        'Write a short related-work paragraph on dense passage retrieval.',
    ],
    'open': [
        'What are the main approaches to retrieval-augmented generation?',
        'How do dialogue systems track the user state across turns?',
        'Which methods detect machine-generated text?',
        'Which DNA topology does Dps condense fastest?',
        'What tools exist for collaborative text annotation, and how do they differ?',
        'Why does batch normalisation speed up training?',
        'How large are the datasets used to pretrain BERT?',
        'What is the effect of learning rate warm-up on transformer training?',
        'Who introduced the attention mechanism for neural machine translation?',
        'Where do most OCR errors on historical newspapers come from?',
        'How does PaperMage represent the layout of a document?',
        'Which is better for low-resource translation, back-translation or pivoting?',
        'Is layer normalisation placed before or after the residual connection in GPT-2?',
        'Should I use Adam or SGD for fine-tuning vision transformers?',
        'Did the study use a randomised or an observational design?',
        'In what ways does CiteSee personalise citations?',
        'To what extent does model size explain few-shot performance?',
        'How many annotators labelled the offensive language dataset?',
        'What limitations do the authors of Multi-LexSum acknowledge?',
        'How do the two Acinetobacter species differ in virulence?',
        'And what about in children?',
        "What's the difference between extractive and abstractive summarisation?",
        'How come large language models fail at arithmetic?',
        'Which of the two approaches needs less labelled data?',
        'What does Shannon define as the entropy of a source?',
        'Here are the papers I have:\nA. Smith 2020\nB. Lee 2021\nWhat do they find about sleep?',
        'Does the model use word-level or character-level tokens?',
        'Are transformers or LSTMs used more often for speech recognition today?',
        'How well does BM25 do on out-of-domain queries, compared with dense retrievers?',
        'What evidence is there on screen time and myopia in children?',
    ],
    'yesno': [
        'Is BERT fine-tuning unstable on small datasets?',
        'Does retrieval-augmented generation reduce hallucinations?',
        'Can large language models reliably grade student essays?',
        'Do vision transformers need more data than convolutional networks?',
        'Is dropout still useful in large pretrained models?',
        'Are smaller models more robust to adversarial examples?',
        'Does curriculum learning speed up neural machine translation training?',
        'Should clinicians prescribe antibiotics for uncomplicated acute bronchitis?',
        'Has the reproducibility of NLP results improved since 2018?',
        'Will scaling alone solve compositional generalisation?',
        'Could data contamination explain the benchmark gains of recent language models?',
        'Was Dps condensation faster on supercoiled DNA?',
        'Did A. lwoffii develop resistance to ciprofloxacin in the lab?',
        "Doesn't label smoothing hurt calibration?",
        "Isn't BM25 still competitive with dense retrievers on out-of-domain queries?",
        'Is it true that mixed precision training lowers accuracy?',
        'True or false: knowledge distillation always needs the teacher\'s logits.',
        'Tell me whether intermittent fasting improves insulin sensitivity.',
        'I wonder whether code pretraining helps mathematical reasoning.',
        'Can you tell me if vitamin C shortens the common cold?',
        'For patients over 80, is a cemented hip implant safer than an uncemented one?',
        'After adjusting for age, does coffee consumption still predict lower mortality?',
        'In low-resource settings, do multilingual models beat monolingual ones?',
        'Given these results, does pretraining on code help?',
        'Tokenisation-free models: are they competitive?',
        'Mindfulness apps and anxiety: do they work?',
        'Does exercise improve sleep quality in older adults? Answer yes, no or maybe first.',
        'Is there evidence that open-plan offices reduce productivity?',
        'Is there a link between screen time and myopia in children?',
        'Are there differences in outcomes between robotic and laparoscopic hysterectomy?',
        'Does fine-tuning on synthetic data cause model collapse? Please cite the evidence.',
        'Can watermarking reliably detect machine-generated text?',
        'May early antibiotic exposure in infancy increase the risk of asthma?',
        'Is beam search worth using for open-ended story generation? Yes or no, then explain.',
        'Please answer yes or no: does BM25 outperform TF-IDF on MS MARCO?',
        'Notes from the meeting\nA. baumannii evolved resistance quickly.\nB. subtilis stayed sensitive.\nDoes this match the literature?',
        'Key steps:\nA. Collect data.\nB. Train the model.\nIs step B necessary if we start from a pretrained model?',
        'Would a larger batch size change the results of the Dps experiments?',
        'Do sparse retrievers still beat dense ones on BEIR?',
        'Has anyone shown that chain-of-thought prompting helps small models?',
    ],
    'choice': [
        'Which antibiotic did A. lwoffii become resistant to?\n(A) meropenem\n(B) ciprofloxacin\n(C) gentamicin\n(D) colistin',
        'What shape of DNA did Dps condense fastest?\nA) relaxed and singly tethered\nB) supercoiled and doubly tethered\nC) relaxed and doubly tethered',
        'Which optimiser did the authors use?\nA. Adam\nB. SGD with momentum\nC. Adafactor\nD. LAMB',
        'How many languages does CoVoST 2 cover?\n(A) 11\n(B) 21\n(C) 36\n(D) 50',
        'Choose the correct option. The tokeniser of GPT-2 is based on\n(A) WordPiece\n(B) byte-level BPE\n(C) SentencePiece unigram',
        'Select the best answer: ColBERT scores a passage by\nA) the dot product of pooled vectors\nB) the sum of maximum similarities per query token\nC) BM25 over expanded terms',
        'In the glucokinase study, most variants were\n(A) hyperactive\n(B) neutral\n(C) hypoactive\nWhich is right?',
        'Pick one: the main cause of OCR errors in the corpus was\nA. page curl\nB. faded ink\nC. broken type',
        'Which gene loss made the plants flower earlier?\n(A) SOC1\n(B) FT\n(C) FLC\n(D) CO\nAnswer with the letter first.',
        'Which dataset was used for evaluation?\nA) SQuAD\nB) Natural Questions\nC) TriviaQA',
        'What was the sample size of the trial?\n(A) 60\n(B) 120\n(C) 240\n(D) 480',
        'The paper reports that REV1 loss causes\n(A) chromosome shattering after alkylation\n(B) faster replication\n(C) no phenotype\nWhich option is correct?',
        'Which metric correlates best with human judgement according to the study?\nA. BLEU\nB. ROUGE-L\nC. BLEURT\nD. METEOR',
        'Which layer type does SegNet use in its decoder?\n(A) transposed convolution\n(B) max-unpooling with stored indices\n(C) bilinear upsampling',
        'What is the main contribution of PaSa?\nA) a new citation index\nB) an LLM agent for paper search\nC) a PDF parser',
        'Where was the helicopter intubation study performed?\n(A) on the ground\n(B) in flight\n(C) in both settings\nChoose one letter.',
        'Which regulariser reduced overfitting most?\nA. dropout\nB. weight decay\nC. early stopping\nD. data augmentation',
        'Which species was more virulent in the moth model?\n(A) A. baumannii\n(B) A. lwoffii',
        'What does the "K" in K-NN evaluation stand for?\nA) kernel\nB) number of neighbours\nC) key',
        'Which of these is a sequence-level distillation method?\n(A) logit matching\n(B) training on the teacher\'s beam outputs\n(C) attention transfer',
        'Is the effect due to which of these?\n(A) temperature\n(B) light\n(C) pH',
        'Which year was the Multi-LexSum dataset released?\nA. 2020\nB. 2021\nC. 2022',
        'Which annotation tool supports real-time collaboration?\n(A) brat\n(B) TextAnnotator\n(C) GATE Teamware\n(D) all of them',
        'What did the authors use as negatives?\nA) random passages\nB) BM25 top passages that are not relevant\nC) in-batch passages only',
        'Which model size gave the best few-shot score?\n(A) 125M\n(B) 1.3B\n(C) 13B\n(D) 175B\nReply with the letter of the right option.',
        'Which statement matches the abstract?\nA. The drug lowered relapses.\nB. The drug had no effect on relapses.\nC. The drug raised relapses.',
        'Two hypotheses:\nA. The drug lowers blood pressure.\nB. The drug has no effect.\nWhich one do the trials support?',
        'Which loss did the segmentation model use?\n(A) cross-entropy\n(B) Dice\n(C) focal\n(D) Dice plus cross-entropy',
        'What fraction of claims in SciFact have evidence?\nA) about a quarter\nB) about half\nC) about two thirds',
        'Which hardware did the authors train on?\n(A) CPUs\n(B) GPUs\n(C) TPUs',
    ],
}
for kind, texts in written.items():
    for index, text in enumerate(texts):
        add(f'written:{kind}:{index}', text, kind, kind == 'yesno', 'written')

for row in rows:
    print(json.dumps(row, ensure_ascii=False))
