#!/usr/bin/env node
// Generates syntaxes/capsulang.tmLanguage.json, the TextMate grammar VS Code
// uses to highlight Capsulang before (and underneath) the language server's
// semantic tokens.
//
//   node scripts/gen-grammar.mjs           write the grammar
//   node scripts/gen-grammar.mjs --check   exit 1 if the committed file is stale
//
// Edit the word lists and rules here, never the JSON. The word lists follow
// tree-sitter-capsulang/script/gen-highlights.py (test/unit/grammar.test.ts
// checks that every word listed there is known here too).
//
// Capsulang is a generic S-expression syntax, so roles come from a symbol's
// place: the head of a list (right after `(`) is a keyword, a declaration
// keyword is followed by the declared name, and so on. A symbol is any run
// of characters other than whitespace, ( ) [ ] { } " and ;.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const outPath = join(here, '..', 'syntaxes', 'capsulang.tmLanguage.json');

// ---------------------------------------------------------------------------
// Word lists

export const EFFECT_DOMAINS = [
  'db', 'typedb', 'mcp', 'a2a', 'a2ui', 'http', 'llm', 'repo', 'ci', 'eval', 'proof', 'model',
  'deploy', 'approval', 'risk', 'policy', 'receipt', 'capability', 'secret', 'zk',
];
export const EFFECT_WORDS = ['requires-user-confirmation', 'requires-auth', 'uses-untrusted-external-data'];

export const BUILTIN_TYPES = [
  'Unit', 'Bool', 'I32', 'I64', 'Int', 'U32', 'U64', 'Text', 'Json', 'Timestamp', 'Duration',
  'Address', 'Wei', 'Bytes32', 'List', 'Array', 'Option', 'Result', 'Map', 'Vector',
];

// Top-level declarations that take a name: (KEYWORD Name ...).
export const NAMED_DECLS = {
  function: 'entity.name.function',
  machine: 'entity.name.type.class.machine',
  store: 'entity.name.type.interface.store',
  surface: 'entity.name.type.interface.surface',
  port: 'entity.name.type.interface.port',
  agent: 'entity.name.type.interface.agent',
};
// Governance and Authority IR declarations: (KEYWORD Name ...).
export const GOVERNANCE = [
  'contract', 'lineage', 'eval-suite', 'successor-contract', 'budget', 'gate', 'deployment-policy',
  'improvement-record', 'verification-hook', 'mandate', 'delegation', 'authority-policy',
  'trust-boundary', 'telemetry-obligation', 'memory-policy', 'zk-proof', 'acceptance',
];
// Declarations whose keyword is also a clause: (principal P) inside a
// capability refers to a principal; a declaration has its name alone on
// the line, the clauses follow on later lines.
export const SHAPED_DECLS = ['principal', 'capability', 'objective', 'store'];

// Machine and type-body forms (storage.type, no declared name of their own
// except event and state, handled below).
export const STRUCTURE_KEYWORDS = ['context', 'initial', 'persistence', 'enum', 'variant', 'error'];

export const SPECIAL_CONDITIONAL = ['if', 'match'];
export const SPECIAL_FORMS = ['let', 'do', 'record', 'some', 'ok', 'err', 'list'];
export const BUILTIN_FUNCTIONS = ['concat', 'len', 'upper', 'lower', 'contains', 'starts-with'];
export const ARITHMETIC = ['+', '-', '*', '/', '%'];
export const COMPARISON = ['==', '!=', '<=', '>=', '<', '>'];
export const LOGICAL = ['and', 'or', 'not'];

// Clause keywords (heads of lists inside declarations), as in
// gen-highlights.py's CLAUSES.
export const CLAUSES = [
  // functions
  'version', 'input', 'output', 'effects', 'requires', 'ensures', 'example', 'body',
  // machines
  'store', 'event-log', 'snapshot', 'replay', 'type', 'timeout', 'guard', 'target', 'assign',
  'retry', 'on-error', 'on',
  // stores, surfaces, ports, agents
  'backend', 'authority', 'collection', 'protocol', 'title', 'route', 'catalog', 'bind', 'state',
  'action', 'endpoint', 'tool', 'resource', 'prompt', 'summary', 'discovery', 'auth', 'skill',
  // improvement governance
  'parent', 'candidate', 'reason', 'proposed-by', 'created-at', 'metric', 'maximize', 'minimize',
  'constraint', 'dataset', 'must-pass', 'status', 'subject', 'obligation', 'preserve', 'forbid',
  'require', 'max-iterations', 'max-llm-calls', 'max-ci-runs', 'max-wall-clock-ms', 'max-cost-usd',
  'allow-effects', 'deny-effects', 'on-fail', 'on-pass', 'mode', 'canary-percent', 'rollback-to',
  'promote-gate', 'quarantine-on', 'parent-hash', 'candidate-hash', 'diff-hash', 'objective',
  'eval-result', 'proof-result', 'policy-decision', 'approval', 'deployment-outcome',
  'rollback-pointer',
  // authority IR
  'kind', 'identity', 'credential', 'attestation', 'issued-by', 'issued-to', 'purpose', 'valid-for',
  'revocable', 'from', 'to', 'under', 'may-delegate', 'expires-after', 'principal', 'effect',
  'requires-mandate', 'requires-delegation', 'limit', 'fail-closed', 'sandbox', 'network',
  'filesystem', 'egress-only', 'secrets', 'requires-attestation', 'requires-profile-digest',
  'capability', 'must-emit', 'include', 'export', 'tamper-evident', 'isolation', 'ttl',
  'source-attribution', 'hash-validation', 'outcome', 'default',
  // zk proofs
  'public', 'private', 'proves',
  // claims before facts: acceptance rules, a machine's claim, an effect's claim
  'auto', 'quorum', 'human', 'principals', 'claim', 'policy', 'accepted',
];
// Heads that take a capitalised argument without declaring a field: (head
// Type) with one of them is not a field declaration. Other clause keywords
// may name fields: (reason Text), (limit U32).
export const NOT_FIELD_NAMES = [
  'module', 'function', 'import', 'as', 'type', 'store', 'state', 'on', 'record', 'output', 'bind',
  'initial', 'target', 'on-error', 'timeout', 'from', 'to', 'under', 'issued-by', 'issued-to',
  'promote-gate', 'approval', 'egress-only', 'requires-mandate', 'requires-delegation',
  'rollback-to', 'subject', 'preserve', 'require', 'principal', 'capability', 'objective', 'event',
  'context', 'persistence', 'enum', 'variant', 'error', 'capsule', 'profile', 'machine', 'surface',
  'port', 'agent', 'if', 'match', 'let', 'do', 'some', 'ok', 'err', 'list',
];
// Clauses whose arguments are state names.
export const STATE_REF_CLAUSES = ['initial', 'target', 'on-error', 'rollback-to'];
// Clauses whose arguments are operation names (port tools, agent skills, ...).
export const OPERATION_CLAUSES = ['tool', 'resource', 'prompt', 'skill', 'action'];

// ---------------------------------------------------------------------------
// Regex building blocks (Oniguruma)

const SYMCHAR = '[^\\s()\\[\\]{}";]';
/** A symbol starts here: not preceded by a symbol character. */
const B = `(?<!${SYMCHAR})`;
/** A symbol ends here: not followed by a symbol character. */
const E = `(?!${SYMCHAR})`;
const SYM = `${SYMCHAR}+`;
const NAME = '[A-Za-z_][A-Za-z0-9_\\-]*';
const OPEN = '(\\()\\s*';

const esc = (w) => w.replace(/[.*+?^${}()|[\]\\\/-]/g, '\\$&');
/** An alternation of words, longest first so that <= wins over <. */
const alt = (ws) => `(?:${[...ws].sort((a, b) => b.length - a.length).map(esc).join('|')})`;

const EFFECT = `(?:${alt(EFFECT_DOMAINS)}\\.${SYM}|${alt(EFFECT_WORDS)})`;

const L = (s) => `${s}.capsulang`;
/** The scope of a shaped declaration's name. */
const shapedName = (kw) => (kw === 'store' ? NAMED_DECLS.store : 'entity.name.type.governance');
const open = { 1: { name: L('punctuation.section.list.begin') } };

/** (HEAD ...) with the head captured as `scope`. */
function head(words, scope) {
  return { match: `${OPEN}(${alt(words)})${E}`, captures: { ...open, 2: { name: L(scope) } } };
}

/** (HEAD NAME ...) with both captured. */
function headName(words, headScope, nameScope, nameRe = SYM) {
  return {
    match: `${OPEN}(${alt(words)})\\s+(${nameRe})${E}`,
    captures: { ...open, 2: { name: L(headScope) }, 3: { name: L(nameScope) } },
  };
}

/** (HEAD NAME NAME ...): every name on the line after the head gets `nameScope`. */
function headNames(words, headScope, nameScope) {
  return {
    match: `${OPEN}(${alt(words)})((?:\\s+${SYM})+)`,
    captures: {
      ...open,
      2: { name: L(headScope) },
      3: { patterns: [{ include: '#comment' }, { match: SYM, name: L(nameScope) }] },
    },
  };
}

// ---------------------------------------------------------------------------
// The grammar

const grammar = {
  $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
  name: 'Capsulang',
  scopeName: 'source.capsulang',
  fileTypes: ['caps'],
  comment: 'GENERATED by scripts/gen-grammar.mjs -- edit that script, then run `npm run grammar`.',
  patterns: [
    { include: '#comment' },
    { include: '#string' },
    { include: '#head' },
    { include: '#atom' },
    { include: '#punctuation' },
  ],
  repository: {
    comment: {
      patterns: [
        {
          // a ;; line of its own is (potentially) a doc comment
          match: '^(\\s*)((;;).*$)',
          captures: {
            2: { name: L('comment.line.double-semicolon.documentation') },
            3: { name: L('punctuation.definition.comment') },
          },
        },
        {
          name: L('comment.line.semicolon'),
          match: '(;+).*$',
          captures: { 1: { name: L('punctuation.definition.comment') } },
        },
      ],
    },
    string: {
      name: L('string.quoted.double'),
      begin: '"',
      beginCaptures: { 0: { name: L('punctuation.definition.string.begin') } },
      end: '"',
      endCaptures: { 0: { name: L('punctuation.definition.string.end') } },
      patterns: [
        { name: L('constant.character.escape'), match: '\\\\(?:[\\\\"nrt0]|u\\{[0-9A-Fa-f]{1,6}\\})' },
        { name: L('invalid.illegal.escape'), match: '\\\\(?:u\\{[^}"]*\\}?|.)?' },
      ],
    },
    punctuation: {
      patterns: [
        { name: L('punctuation.section.list.begin'), match: '\\(' },
        { name: L('punctuation.section.list.end'), match: '\\)' },
        { name: L('invalid.illegal.reserved-bracket'), match: '[\\[\\]{}]' },
      ],
    },
    // The head of a list: its keyword, and for declarations the name.
    head: {
      patterns: [
        headName(['module'], 'storage.type.module', 'entity.name.namespace'),
        headName(['import'], 'keyword.control.import', 'entity.name.namespace'),
        headName(['as'], 'keyword.control.import.as', 'entity.name.namespace.alias'),
        head(['module', 'import', 'as'], 'keyword.control.import'),
        headNames(['profile'], 'storage.type.profile', 'entity.other.attribute-name.profile'),
        head(['capsule'], 'storage.type.capsule'),
        ...Object.entries(NAMED_DECLS)
          .filter(([kw]) => !SHAPED_DECLS.includes(kw))
          .map(([kw, scope]) => headName([kw], `storage.type.${kw}`, scope)),
        headName(GOVERNANCE, 'storage.type.governance', 'entity.name.type.governance'),
        // (principal Name) alone on its line declares; (principal Name) that
        // closes on the line refers to one.
        ...SHAPED_DECLS.map((kw) => ({
          match: `${OPEN}(${esc(kw)})\\s+(${SYM})(?=\\s*(?:;.*)?$)`,
          captures: { ...open, 2: { name: L(`storage.type.${kw}`) }, 3: { name: L(shapedName(kw)) } },
        })),
        ...SHAPED_DECLS.map((kw) => headName([kw], 'keyword.other.clause', shapedName(kw))),
        // (type Name ...) declares a type; (type final) is a state clause.
        headName(['type'], 'storage.type.type', 'entity.name.type', `[A-Z]${SYMCHAR}*`),
        headName(['state'], 'storage.type.state', 'variable.other.enummember.state', NAME),
        headNames(['event'], 'storage.type.event', 'entity.name.type.event'),
        headName(['on'], 'keyword.control.transition', 'entity.name.type.event', NAME),
        headNames(STATE_REF_CLAUSES, 'keyword.other.clause', 'variable.other.enummember.state'),
        headNames(OPERATION_CLAUSES, 'keyword.other.clause', 'entity.name.function.operation'),
        head(STRUCTURE_KEYWORDS, 'storage.type.structure'),
        head(SPECIAL_CONDITIONAL, 'keyword.control.conditional'),
        head(SPECIAL_FORMS, 'keyword.other.special-form'),
        // (name Type) and (name (List T)): a field declaration.
        {
          match: `${OPEN}(?!${alt(NOT_FIELD_NAMES)}${E})([a-z_][A-Za-z0-9_\\-]*)(?=\\s+(?:[A-Z][A-Za-z0-9_]*${E}(?!\\.)|\\(\\s*${alt(BUILTIN_TYPES)}${E}))`,
          captures: { ...open, 2: { name: L('variable.other.property.field') } },
        },
        head(CLAUSES, 'keyword.other.clause'),
        { match: `${OPEN}(${EFFECT})${E}`, captures: { ...open, 2: { name: L('support.function.effect') } } },
        head(BUILTIN_FUNCTIONS, 'support.function.builtin'),
        head(BUILTIN_TYPES, 'support.type.builtin'),
        head(ARITHMETIC, 'keyword.operator.arithmetic'),
        head(COMPARISON, 'keyword.operator.comparison'),
        head(LOGICAL, 'keyword.operator.logical'),
        // any other head: a call of a function or a variant case
        {
          match: `${OPEN}(?![0-9"])(${NAME})${E}`,
          captures: { ...open, 2: { name: L('entity.name.function.call') } },
        },
      ],
    },
    atom: {
      patterns: [
        { name: L('constant.numeric.duration'), match: `${B}[0-9]+(ms|s|m|h|d)${E}`, captures: { 1: { name: L('keyword.other.unit') } } },
        { name: L('constant.numeric.decimal'), match: `${B}-?[0-9]+\\.[0-9]+${E}` },
        { name: L('constant.numeric.integer'), match: `${B}-?[0-9]+${E}` },
        { name: L('invalid.illegal.numeric'), match: `${B}-?[0-9]${SYMCHAR}*` },
        { name: L('constant.language.boolean'), match: `${B}(?:true|false)${E}` },
        { name: L('constant.language.none'), match: `${B}none${E}` },
        { name: L('variable.language.result'), match: `${B}result${E}` },
        { name: L('variable.language.wildcard'), match: `${B}_${E}` },
        { name: L('support.function.effect'), match: `${B}${EFFECT}${E}` },
        { name: L('support.type.builtin'), match: `${B}${alt(BUILTIN_TYPES)}${E}` },
        { name: L('keyword.operator.comparison'), match: `${B}${alt(COMPARISON)}${E}` },
        { name: L('keyword.operator.arithmetic'), match: `${B}${alt(ARITHMETIC)}${E}` },
        { name: L('keyword.operator.logical'), match: `${B}${alt(LOGICAL)}${E}` },
        {
          // contract:NoRemoteShell, human:HeadGrower
          name: L('meta.reference.qualified'),
          match: `${B}(${NAME})(:)(${SYM})`,
          captures: {
            1: { name: L('storage.modifier.reference-kind') },
            2: { name: L('punctuation.separator.reference') },
            3: { name: L('entity.name.type.reference') },
          },
        },
        {
          // Mode.manual, VentCommand.close
          match: `${B}([A-Z][A-Za-z0-9_]*)(\\.)(${NAME})${E}`,
          captures: {
            1: { name: L('entity.name.type') },
            2: { name: L('punctuation.accessor') },
            3: { name: L('variable.other.enummember') },
          },
        },
        { name: L('entity.name.type'), match: `${B}[A-Z][A-Za-z0-9_]*${E}` },
        {
          // event.amount, claims_db.archive
          match: `${B}(${NAME})((?:\\.${NAME})+)${E}`,
          captures: {
            1: { name: L('variable.other.object') },
            2: {
              patterns: [
                { match: '\\.', name: L('punctuation.accessor') },
                { match: NAME, name: L('variable.other.property') },
              ],
            },
          },
        },
      ],
    },
  },
};

const text = JSON.stringify(grammar, null, 2) + '\n';

if (process.argv.includes('--check')) {
  let old = '';
  try {
    old = readFileSync(outPath, 'utf8');
  } catch {
    // missing: stale
  }
  if (old !== text) {
    console.error(`${outPath} is out of date; run: npm run grammar`);
    process.exit(1);
  }
  console.log('grammar is up to date');
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(outPath, text);
  console.log(`wrote ${outPath}`);
}
