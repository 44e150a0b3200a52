#!/usr/bin/env python3
"""Generate queries/highlights.scm and queries/locals.scm for Capsulang.

    python3 script/gen-highlights.py > queries/highlights.scm
    python3 script/gen-highlights.py --locals > queries/locals.scm

The query is generated because some contexts are spelled out once per arity
("exact-arity patterns", see the note in the header below); edit the word
lists and patterns here, not the .scm file.
"""

import json
import os
import sys

# ---------------------------------------------------------------------------
# Word lists

EFFECT_RE = (
    "^(db|typedb|mcp|a2a|a2ui|http|llm|repo|ci|eval|proof|model|deploy|approval"
    "|risk|policy|receipt|capability|zk)\\\\."
)
EFFECT_WORDS = ["requires-user-confirmation", "requires-auth", "uses-untrusted-external-data"]

BUILTIN_TYPES = [
    "Unit", "Bool", "I32", "I64", "Int", "U32", "U64", "Text", "Json", "Timestamp", "Duration",
    "Address", "Wei", "Bytes32", "List", "Array", "Option", "Result", "Map", "Vector",
]
PARAM_TYPES = ["List", "Array", "Option", "Result", "Map", "Vector"]

# Governance and Authority IR declarations that never appear as a clause head.
GOVERNANCE = [
    "contract", "lineage", "eval-suite", "successor-contract", "budget", "gate",
    "deployment-policy", "improvement-record", "verification-hook", "mandate", "delegation",
    "authority-policy", "trust-boundary", "telemetry-obligation", "memory-policy", "zk-proof",
    "acceptance",
]
# Declarations whose head also appears as a clause head elsewhere; they are
# told apart by shape: a declaration has a name followed by a clause (or a
# comment), a clause such as (store S), (principal P) or (capability A B) has
# only names.
SHAPED_DECLS_TYPE = ["capability", "principal", "objective"]

# Declaration keywords recognised by name alone (@keyword.type).
DECL_KEYWORDS = (
    ["capsule", "profile", "machine", "surface", "port", "agent"]
    + GOVERNANCE
    + ["context", "initial", "persistence", "event", "enum", "variant", "error"]
)

SPECIAL_CONDITIONAL = ["if", "match"]
SPECIAL_FORMS = ["let", "do", "record", "some", "ok", "err", "list"]
BUILTIN_FUNCTIONS = ["concat", "len", "upper", "lower", "contains", "starts-with"]
OPERATORS = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">="]
WORD_OPERATORS = ["and", "or", "not"]

# Clause keywords: heads of the lists inside declarations (decisions.md and
# spec sections 05, 09, 12, 13, 16). A head not listed here is highlighted
# as a call; add new clause keywords here.
CLAUSES = [
    # functions
    "version", "input", "output", "effects", "requires", "ensures", "example", "body",
    # machines (type: (type final) in a state; store: (store S) in persistence;
    # on: a rule in an authority-policy -- a transition is @keyword.type)
    "store", "event-log", "snapshot", "replay", "type", "timeout", "guard", "target", "assign",
    "retry", "on-error", "on",
    # stores, surfaces, ports, agents (state: a surface's state fields)
    "backend", "authority", "collection", "protocol", "title", "route", "catalog", "bind",
    "state", "action", "endpoint", "tool", "resource", "prompt", "summary", "discovery",
    "auth", "skill",
    # improvement governance
    "parent", "candidate", "reason", "proposed-by", "created-at", "metric", "maximize",
    "minimize", "constraint", "dataset", "must-pass", "status", "subject", "obligation",
    "preserve", "forbid", "require", "max-iterations", "max-llm-calls", "max-ci-runs",
    "max-wall-clock-ms", "max-cost-usd", "allow-effects", "deny-effects", "on-fail", "on-pass",
    "mode", "canary-percent", "rollback-to", "promote-gate", "quarantine-on", "parent-hash",
    "candidate-hash", "diff-hash", "objective", "eval-result", "proof-result",
    "policy-decision", "approval", "deployment-outcome", "rollback-pointer",
    # authority IR
    "kind", "identity", "credential", "attestation", "issued-by", "issued-to", "purpose",
    "valid-for", "revocable", "from", "to", "under", "may-delegate", "expires-after",
    "principal", "effect", "requires-mandate", "requires-delegation", "limit", "fail-closed",
    "sandbox", "network", "filesystem", "egress-only", "secrets", "requires-attestation",
    "requires-profile-digest", "capability", "must-emit", "include", "export",
    "tamper-evident", "isolation", "ttl", "source-attribution", "hash-validation", "outcome",
    "default",
    # zk proofs
    "public", "private", "proves",
    # claims before facts: acceptance rules, a machine's (claim F (policy P)
    # (accepted E)), an effect's (claim F)
    "auto", "quorum", "human", "principals", "claim", "policy", "accepted",
]

# A field declaration is (name Type) with a lower-case name. These heads take a
# capitalised argument without declaring a field, so (head Type) with one of
# them is not a field. Other clause keywords may name fields: (limit U32).
NOT_FIELD_NAMES = sorted(set(
    DECL_KEYWORDS + SHAPED_DECLS_TYPE + SPECIAL_CONDITIONAL + SPECIAL_FORMS
    + BUILTIN_FUNCTIONS + WORD_OPERATORS + EFFECT_WORDS
    + ["module", "function", "import", "as", "type", "store", "state", "on", "record",
       "output", "bind", "initial", "target", "on-error", "timeout", "from", "to", "under",
       "issued-by", "issued-to", "promote-gate", "approval", "egress-only",
       "requires-mandate", "requires-delegation", "rollback-to", "subject", "preserve",
       "require"]
))

# ---------------------------------------------------------------------------
# Helpers

out = []


def emit(text=""):
    out.append(text)


def words(ws, indent, width=96):
    """Quoted words wrapped at width, each line indented."""
    lines, cur = [], " " * indent
    for w in ws:
        q = '"' + w + '"'
        if len(cur) + len(q) + 1 > width and cur.strip():
            lines.append(cur.rstrip())
            cur = " " * indent
        cur += q + " "
    lines.append(cur.rstrip())
    return "\n".join(lines)


def pred(op, cap, ws, indent=2):
    """(#op @cap "w" ...) laid out like the hand-written patterns."""
    if len(ws) <= 3 and sum(len(w) + 3 for w in ws) < 60:
        return " " * indent + f'(#{op} @{cap} ' + " ".join(f'"{w}"' for w in ws) + ")"
    return " " * indent + f"(#{op} @{cap}\n" + words(ws, indent + 2) + ")"


def head(cap, ws, op="any-of?"):
    """An anchored head symbol captured as cap, restricted to the words ws."""
    if len(ws) == 1:
        return f'  .\n  (symbol) @{cap}\n  (#eq? @{cap} "{ws[0]}")'
    return f"  .\n  (symbol) @{cap}\n" + pred(op, cap, ws)


def exact_arity(comment, head_cap, head_words, slot, lo, hi, before="", end=False):
    """One pattern per arity n in lo..hi: the head, the optional fixed
    elements in `before`, then n elements matching `slot` (more may follow;
    the pattern for the highest matching n comes last and wins)."""
    if hi < lo:
        return
    emit(comment)
    for n in range(lo, hi + 1):
        emit("(list")
        emit(head(head_cap, head_words))
        if before:
            emit(before)
        for _ in range(n):
            emit("  .")
            emit("  " + slot)
        emit("  .)" if end else "  )")
        emit()


# ---------------------------------------------------------------------------
# The query

emit("""; Syntax highlighting for Capsulang (.caps).
; GENERATED by script/gen-highlights.py -- edit that script, then run
;   python3 script/gen-highlights.py > queries/highlights.scm
;
; The grammar is generic S-expressions, so roles come from head symbols and
; positions. Only #eq?, #match?, #any-of? and #not-... forms are used, and the
; #match? regexes mean the same in Rust regex and in Vim's very magic mode.
;
; Precedence. For one node the LAST matching pattern wins, in Neovim 0.10 and
; in tree-sitter 0.22.6 (`tree-sitter test`, `tree-sitter highlight`). The
; file goes from generic fallbacks to specific patterns.
;
; Two engines read this file, and each limits how it can be written:
;
; * tree-sitter-highlight 0.22.6 (`tree-sitter test`, `tree-sitter highlight`):
;   when several matches capture the same node it keeps only the last of them
;   and drops the other matches' captures on later nodes. So
;     (list . (symbol) @_h (#eq? @_h "input") (list . (symbol) @variable.parameter))
;   highlights only the LAST parameter (and `_h` itself is reported as a
;   highlight by `tree-sitter test`).
; * Neovim 0.10 runs the query with a limit of 256 in-progress matches. A
;   pattern that stays undecided while a large subtree is walked (an
;   unanchored child, a quantifier, a slot holding an arbitrary expression)
;   holds back every later capture, and in a large file Neovim then drops
;   matches.
;
; Hence:
;   1. Single-capture patterns first; they may overlap freely.
;   2. Then multi-capture patterns: anchored, one match per list, the head
;      captured with its real highlight (never a `_` capture), and each the
;      last pattern to capture the nodes it captures.
;   3. Repeated children whose role depends on the head's text (parameters,
;      assignments, enum members, ...) use one pattern per number of children
;      up to a small limit (LIMITS in the script), with slots decided within a
;      few tokens. Past the limit, with a comment among them, or with a value
;      too complex for a slot, they keep the generic captures.
;   4. Let bindings are found by position (the bindings list is the only list
;      in second position that starts with a list): one pattern per binding.
;   5. Field declarations (name Type) are recognised by shape, not context.
;   6. A "." anchor right after a predicate at the end of a list is ignored by
;      tree-sitter 0.22, so such patterns keep their predicates outside:
;      ((list ... .) (#eq? ...)).
; Not covered, for these reasons: constructor patterns in match arms, fields
; of a record expression, and bare constructors in a variant that also has
; constructors with fields; they keep the generic captures. Approximations:
; (event E ...) is @keyword.type in a surface too, and a verification-hook's
; (target lean4) is a @label like a transition's target.
;
; Capture names (nvim-treesitter conventions):
;
;   declaration keyword  @keyword.type       module capsule profile type machine store
;                                            surface port agent, governance and authority
;                                            forms (contract ... zk-proof), machine forms
;                                            context event initial persistence state on,
;                                            and record enum variant error in a type body
;                        @keyword.function   function
;                        @keyword.import     import, and as in (import m (as alias))
;   clause keyword       @property           input output effects requires ensures
;                                            example body version target guard assign
;                                            backend authority title route bind protocol
;                                            tool skill action timeout summary metric ...
;                                            (a closed list: CLAUSES in script/gen-highlights.py)
;   declared name        @module             module NAME, imported module, alias
;                        @function           function NAME
;                        @type.definition    type NAME, machine NAME, governance NAME
;                        @constant           store/surface/port/agent NAME, enum members,
;                                            Type.member
;                        @constructor        machine event NAME, variant constructors
;                        @label              state NAME
;                        @function.method    surface action NAME, port tool / agent skill /
;                                            prompt names
;                        @variable.member    field declarations (name Type): context, event
;                                            payload, record, error, surface state, zk
;                                            public/private fields; assign targets
;                        @variable.parameter (input (NAME T) ...)
;                        @variable           let bindings, other symbols
;   reference            @label              (initial S) (target S) (on-error S)
;                        @constructor        (on E ...) (timeout D E), surface (event E ...)
;                        @type               (bind MACHINE)
;                        @string.special.symbol  qualified references contract:X, agent:X
;   effect               @function.builtin   head symbols db. typedb. mcp. a2a. a2ui. http.
;                                            llm. repo. ci. eval. proof. model. deploy.
;                                            approval. risk. policy. receipt. capability. zk.
;                                            requires-user-confirmation requires-auth
;                                            uses-untrusted-external-data, and the members of
;                                            (allow-effects ...) / (deny-effects ...)
;                        @keyword.modifier   pure in (effects pure)
;   builtin function     @function.builtin   concat len upper lower contains starts-with
;   call                 @function.call      the head of any other list
;   type                 @type.builtin       Unit Bool I32 I64 Int U32 U64 Text Json
;                                            Timestamp Duration Address Wei Bytes32 List
;                                            Array Option Result Map Vector
;                        @type               any other capitalised plain symbol
;   profile              @attribute          the names in (profile ...)
;   operator             @operator           + - * / % == != < <= > >=
;                        @keyword.operator   and or not
;   special form         @keyword.conditional  if match
;                        @keyword            let do record some ok err list
;   literal              @number, @number.float (decimals), @string, @string.escape,
;                        @string.special.url (endpoint catalog discovery),
;                        @string.special.path (route), @boolean (true false),
;                        @constant.builtin (none), @variable.builtin (result),
;                        @character.special (_)
;   comment              @comment; @comment.documentation for `;;` comments
;   punctuation          @punctuation.bracket ( )
""")

emit("; ===========================================================================")
emit("; 1. Single-capture patterns")
emit()
emit("; Fallbacks")
emit()
emit("(symbol) @variable")
emit()
emit("((symbol) @type\n  (#match? @type \"^[A-Z][A-Za-z0-9_]*$\"))")
emit()
emit("(list\n  .\n  (symbol) @function.call)")
emit()
emit("; Clause keywords")
emit()
emit("(list\n" + head("property", CLAUSES) + ")")
emit()
emit("; Expressions")
emit()
emit("((symbol) @operator\n" + pred("any-of?", "operator", OPERATORS) + ")")
emit()
emit("((symbol) @keyword.operator\n" + pred("any-of?", "keyword.operator", WORD_OPERATORS) + ")")
emit()
emit("(list\n" + head("keyword.conditional", SPECIAL_CONDITIONAL) + ")")
emit()
emit("(list\n" + head("keyword", SPECIAL_FORMS) + ")")
emit()
emit("(list\n" + head("function.builtin", BUILTIN_FUNCTIONS) + ")")
emit()
emit('((symbol) @variable.builtin\n  (#eq? @variable.builtin "result"))')
emit()
emit("; Qualified references: contract:X, eval-suite:X, agent:X, human:X ...")
emit('((symbol) @string.special.symbol\n  (#match? @string.special.symbol "^[a-z][a-z0-9_-]*:[^:]"))')
emit()
emit("; Type.member: enum members (Status.open) and members of capitalised names")
emit('((symbol) @constant\n  (#match? @constant "^[A-Z][A-Za-z0-9_]*\\\\.[A-Za-z_][A-Za-z0-9_]*$"))')
emit()
emit("; Effects")
emit()
emit(f'(list\n  .\n  (symbol) @function.builtin\n  (#match? @function.builtin\n    "{EFFECT_RE}"))')
emit()
emit("(list\n" + head("function.builtin", EFFECT_WORDS) + ")")
emit()
emit("; Declaration keywords recognised by name")
emit()
emit('(source_file\n  (list\n    .\n    (symbol) @keyword.type\n    (#eq? @keyword.type "module")))')
emit()
emit("(list\n" + head("keyword.function", ["function"]) + ")")
emit()
emit("(list\n" + head("keyword.import", ["import"]) + ")")
emit()
emit("(list\n" + head("keyword.type", DECL_KEYWORDS) + ")")
emit()
emit("; Declaration keywords recognised by shape: (type Name T) has three parts,")
emit("; (type final) in a state two; a machine state has a name, a surface's")
emit("; (state (f T)) has fields; a type body (record (f T) ...) starts with a field.")
emit()
emit('(list\n  .\n  (symbol) @keyword.type\n  (#eq? @keyword.type "type")\n  .\n  (symbol)\n  .\n  (_))')
emit()
emit('(list\n  .\n  (symbol) @keyword.type\n  (#eq? @keyword.type "state")\n  .\n  (symbol))')
emit()
emit('(list\n  .\n  (symbol) @keyword.type\n  (#eq? @keyword.type "record")\n  .\n  (list))')
emit()
emit("; Builtin types")
emit()
emit("((symbol) @type.builtin\n" + pred("any-of?", "type.builtin", BUILTIN_TYPES) + ")")
emit()
emit("; Literals and comments")
emit()
emit("(number) @number")
emit()
emit('((number) @number.float\n  (#match? @number.float "^-?[0-9]+\\\\.[0-9]+$"))')
emit()
emit("(string) @string")
emit()
emit("(escape_sequence) @string.escape")
emit()
emit('((symbol) @boolean\n  (#any-of? @boolean "true" "false"))')
emit()
emit('((symbol) @constant.builtin\n  (#eq? @constant.builtin "none"))')
emit()
emit('((symbol) @character.special\n  (#eq? @character.special "_"))')
emit()
emit("(comment) @comment")
emit()
emit('((comment) @comment.documentation\n  (#match? @comment.documentation "^;;"))')
emit()
emit('[\n  "("\n  ")"\n] @punctuation.bracket')
emit()

emit("; ===========================================================================")
emit("; 2. Multi-capture patterns: one match per list, head captured with its real")
emit(";    highlight, last pattern for every node they capture")
emit()
emit("; Field declarations (name Type), (name (List T)) ... wherever they appear;")
emit("; parameters and variant constructors override the name further down.")
emit()
# Note: a "." anchor right after a predicate at the end of a list is ignored
# by tree-sitter 0.22 ("(list . (symbol) @a (#eq? @a \"x\") .)" matches
# (x y z)). Patterns that end in an anchor keep their predicates outside the
# list: ((list ... .) (#eq? ...)).
not_field = ('  (#match? @variable.member "^[a-z_]")\n'
             + pred("not-any-of?", "variable.member", NOT_FIELD_NAMES, 2) + "\n"
             + f'  (#not-match? @variable.member\n    "{EFFECT_RE}")')
emit("((list\n  .\n  (symbol) @variable.member\n  .\n  (symbol) @type.builtin\n  .)\n"
     + not_field + "\n" + pred("any-of?", "type.builtin", BUILTIN_TYPES) + ")")
emit()
emit("((list\n  .\n  (symbol) @variable.member\n  .\n  (symbol) @type\n  .)\n"
     + not_field + "\n" + '  (#match? @type "^[A-Z][A-Za-z0-9_]*$")\n'
     + pred("not-any-of?", "type", BUILTIN_TYPES) + ")")
emit()
emit("((list\n  .\n  (symbol) @variable.member\n  .\n  (list\n    .\n    (symbol) @type.builtin)\n  .)\n"
     + not_field + "\n" + pred("any-of?", "type.builtin", PARAM_TYPES) + ")")
emit()
NOT_CTOR = NOT_FIELD_NAMES + ["input", "context", "public", "private", "none", "true", "false", "_"]
emit("; A variant constructor with fields: (ctor (field T) ...), the first field")
emit("; a declaration by shape (section 2 above recognises the field itself).")
emit("((list\n  .\n  (symbol) @constructor\n  .\n  (list\n    .\n    (symbol)\n    .\n    (symbol) @type.builtin\n    .))\n"
     + pred("not-any-of?", "constructor", NOT_CTOR) + "\n" + pred("any-of?", "type.builtin", BUILTIN_TYPES) + ")")
emit()
emit("((list\n  .\n  (symbol) @constructor\n  .\n  (list\n    .\n    (symbol)\n    .\n    (symbol) @type\n    .))\n"
     + pred("not-any-of?", "constructor", NOT_CTOR) + "\n" + '  (#match? @type "^[A-Z][A-Za-z0-9_]*$")\n'
     + pred("not-any-of?", "type", BUILTIN_TYPES) + ")")
emit()
emit("; Declared names")
emit()
emit('(source_file\n  (list\n    .\n    (symbol) @keyword.type\n    (#eq? @keyword.type "module")\n    .\n    (symbol) @module))')
emit()
emit("(list\n" + head("keyword.function", ["function"]) + "\n  .\n  (symbol) @function)")
emit()
emit("(list\n" + head("keyword.type", ["machine"] + GOVERNANCE) + "\n  .\n  (symbol) @type.definition)")
emit()
emit("(list\n" + head("keyword.type", ["type"]) + "\n  .\n  (symbol) @type.definition\n  .\n  (_))")
emit()
emit("(list\n" + head("keyword.type", SHAPED_DECLS_TYPE) + "\n  .\n  (symbol) @type.definition\n  .\n  [\n    (list)\n    (comment)\n  ])")
emit()
emit("(list\n" + head("keyword.type", ["store"]) + "\n  .\n  (symbol) @constant\n  .\n  [\n    (list)\n    (comment)\n  ])")
emit()
emit("(list\n" + head("keyword.type", ["surface", "port", "agent"]) + "\n  .\n  (symbol) @constant)")
emit()
emit("(list\n" + head("keyword.import", ["import"]) + "\n  .\n  (symbol) @module)")
emit()
emit("(list\n" + head("keyword.import", ["as"]) + "\n  .\n  (symbol) @module)")
emit()
emit("; Machines")
emit()
emit("(list\n" + head("keyword.type", ["state"]) + "\n  .\n  (symbol) @label)")
emit()
emit("(list\n" + head("keyword.type", ["initial"]) + "\n  .\n  (symbol) @label)")
emit()
emit("(list\n" + head("keyword.type", ["event"]) + "\n  .\n  (symbol) @constructor)")
emit()
emit("; A transition: (on EVENT clause ...) whose first clause is guard, target,")
emit("; assign or effects (or a comment). (on allow (if ...)) in an authority-policy")
emit("; stays a clause.")
emit('(list\n  .\n  (symbol) @keyword.type\n  (#eq? @keyword.type "on")\n  .\n  (symbol) @constructor\n'
     '  .\n  [\n    (comment)\n    (list\n      .\n      (symbol) @property\n      (#any-of? @property "guard" "target" "assign" "effects"))\n  ])')
emit()
emit("; (target STATE). A verification-hook's (target lean4) is highlighted the same way.")
emit("(list\n" + head("property", ["target"]) + "\n  .\n  (symbol) @label)")
emit()
emit("(list\n" + head("property", ["timeout"]) + "\n  .\n  (number)\n  .\n  (symbol) @constructor)")
emit()
emit("(list\n" + head("property", ["on-error"]) + "\n  .\n  (symbol) @label)")
emit()
emit("; Surfaces, ports, agents")
emit()
emit("(list\n" + head("property", ["bind"]) + "\n  .\n  (symbol) @type)")
emit()
emit("(list\n" + head("property", ["action"]) + "\n  .\n  (symbol) @function.method)")
emit()
emit("(list\n" + head("property", ["tool", "skill", "prompt"]) + "\n  .\n  (symbol) @function.method)")
emit()
emit("(list\n" + head("property", ["endpoint", "catalog", "discovery"]) + "\n  .\n  (string) @string.special.url)")
emit()
emit("(list\n" + head("property", ["route"]) + "\n  .\n  (string) @string.special.path)")
emit()
emit('((list\n  .\n  (symbol) @property\n  .\n  (symbol) @keyword.modifier\n  .)\n'
     '  (#eq? @property "effects")\n  (#eq? @keyword.modifier "pure"))')
emit()

emit("; ===========================================================================")
emit("; 3. Exact-arity patterns (see rule 3 in the header)")
emit()
# Highest arity generated for each context; see rules 3 and 4 in the header.
# Every pattern costs Neovim query-cursor capacity (its match limit is 256):
# after raising a limit, check in Neovim that a large, deeply nested file
# highlights the same with the limit as without it. CAPS_HL_LIMITS='{"enum": 4}'
# overrides entries for such experiments.
LIMITS = {"input": 3, "assign": 2, "let": 6, "record": 0, "enum": 8, "variant": 4,
          "event": 4, "tool": 4, "profile": 4, "effects": 8, "fields": 6}
LIMITS.update(json.loads(os.environ.get("CAPS_HL_LIMITS", "{}")))

# Bounded slots: each repeated child is decided within a few tokens, so an
# unrelated list with a large child (say (body ...)) fails fast.
ATOM = "[(symbol) (number) (string)]"
SIMPLE_TYPE = ("[(symbol) (list . (symbol) . (symbol) .) "
               "(list . (symbol) . (symbol) . [(symbol) (number)] .)]")
SIMPLE_VALUE = ("[" + ATOM[1:-1]
                + " (list . (symbol) .)"
                + " (list . (symbol) . " + ATOM + " .)"
                + " (list . (symbol) . " + ATOM + " . " + ATOM + " .)"
                + " (list . (symbol) . " + ATOM + " . " + ATOM + " . " + ATOM + " .)]")

exact_arity("; (input (name T) ...), T a type name or (List T), (Map K V) ...", "property",
            ["input"], "(list . (symbol) @variable.parameter . " + SIMPLE_TYPE + " .)",
            1, LIMITS["input"])
exact_arity("; (assign (field value) ...), value an atom or a call on atoms", "property",
            ["assign"], "(list . (symbol) @variable.member . " + SIMPLE_VALUE + " .)",
            1, LIMITS["assign"])
exact_arity("; (record Type (field value) ...)", "keyword", ["record"],
            "(list . (symbol) @variable.member . " + SIMPLE_VALUE + " .)", 1, LIMITS["record"],
            before="  .\n  (symbol)")
if LIMITS["let"]:
    emit("; (let ((name value) ...) body): the bindings list is the only list in second")
    emit("; position that starts with a list. One pattern per position captures just")
    emit("; that binding's name, so no two matches share a node (and nothing waits on")
    emit("; the head's text).")
for n in range(1, LIMITS["let"] + 1):
    emit("(list")
    emit("  .")
    emit("  (symbol)")
    emit("  .")
    emit("  (list")
    for _ in range(n - 1):
        emit("    .")
        emit("    (list)")
    emit("    .")
    emit("    (list")
    emit("      .")
    emit("      (symbol) @variable)))")
    emit()
exact_arity("; (enum member ...)", "keyword.type", ["enum"], "(symbol) @constant", 1, LIMITS["enum"])
exact_arity("; (variant ctor ...) when every constructor is bare; a constructor with\n"
            "; fields, (ctor (field T) ...), is recognised by shape in section 2",
            "keyword.type", ["variant"], "(symbol) @constructor", 1, LIMITS["variant"])
exact_arity("; (event E1 E2 ...) in a surface", "keyword.type", ["event"],
            "(symbol) @constructor", 2, LIMITS["event"])
exact_arity("; (tool t1 t2 ...) (skill ...) (prompt ...)", "property", ["tool", "skill", "prompt"],
            "(symbol) @function.method", 2, LIMITS["tool"])
exact_arity("; (profile p ...)", "keyword.type", ["profile"], "(symbol) @attribute", 1,
            LIMITS["profile"])
exact_arity("; (allow-effects e ...) (deny-effects e ...)", "property",
            ["allow-effects", "deny-effects"], "(symbol) @function.builtin", 1, LIMITS["effects"])

if "--locals" in sys.argv:
    out.clear()
    emit("""; Scopes, definitions and references for Capsulang (nvim-treesitter locals).
; GENERATED by script/gen-highlights.py --locals -- edit that script, then run
;   python3 script/gen-highlights.py --locals > queries/locals.scm
;
; Definitions use the kind-suffixed names nvim-treesitter documents
; (@local.definition.function, ...). tree-sitter's own highlighter treats only
; a bare @local.definition as a definition, so these queries do not change
; what `tree-sitter highlight` / `tree-sitter test` report.
;
; The patterns follow the rules in the header of highlights.scm: anchored,
; decided within a few nodes, no unanchored child searches. The tree-sitter
; CLI runs locals and highlights as one query, and a long-lived pattern here
; slows it down badly (0.22.6 even crashed on a 750-line file).
""")
    emit("; Scopes")
    emit()
    emit("(source_file) @local.scope")
    emit()
    emit("((list\n  .\n  (symbol) @_kw) @local.scope\n" + pred("any-of?", "_kw", [
        "module", "function", "machine", "let", "type", "surface", "port", "agent", "action",
        "tool", "skill", "zk-proof"]) + ")")
    emit()
    emit("; Declared names")
    emit()
    emit('(source_file\n  (list\n    .\n    (symbol) @_kw\n    (#eq? @_kw "module")\n    .\n    (symbol) @local.definition.namespace))')
    emit()
    emit("(list\n" + head("_kw", ["import"]) + "\n  .\n  (symbol) @local.definition.import)")
    emit()
    emit("(list\n" + head("_kw", ["as"]) + "\n  .\n  (symbol) @local.definition.import)")
    emit()
    emit("(list\n" + head("_kw", ["function"]) + "\n  .\n  (symbol) @local.definition.function)")
    emit()
    emit("(list\n" + head("_kw", ["machine"] + GOVERNANCE) + "\n  .\n  (symbol) @local.definition.type)")
    emit()
    emit("(list\n" + head("_kw", ["type"]) + "\n  .\n  (symbol) @local.definition.type\n  .\n  (_))")
    emit()
    emit("(list\n" + head("_kw", SHAPED_DECLS_TYPE) + "\n  .\n  (symbol) @local.definition.type\n  .\n  [\n    (list)\n    (comment)\n  ])")
    emit()
    emit("(list\n" + head("_kw", ["store"]) + "\n  .\n  (symbol) @local.definition.namespace\n  .\n  [\n    (list)\n    (comment)\n  ])")
    emit()
    emit("(list\n" + head("_kw", ["surface", "port", "agent"]) + "\n  .\n  (symbol) @local.definition.namespace)")
    emit()
    emit("; Machine states and events")
    emit("(list\n" + head("_kw", ["state"]) + "\n  .\n  (symbol) @local.definition.constant)")
    emit()
    emit("(list\n" + head("_kw", ["event"]) + "\n  .\n  (symbol) @local.definition.type)")
    emit()
    emit("; Surface actions; port tools and prompts; agent skills (the first name)")
    emit("(list\n" + head("_kw", ["action", "tool", "skill", "prompt"]) + "\n  .\n  (symbol) @local.definition.method)")
    emit()
    field_slot = "(list . (symbol) @local.definition.field . " + SIMPLE_TYPE + " .)"
    exact_arity("; Fields: (context (f T) ...), (record ...), (error ...), (public ...), (private ...)",
                "_kw", ["context", "record", "error", "public", "private"], field_slot,
                1, LIMITS["fields"], end=True)
    exact_arity("; Event payload fields: (event Name (f T) ...)", "_kw", ["event"], field_slot,
                1, LIMITS["fields"], before="  .\n  (symbol)", end=True)
    exact_arity("; Surface state fields: (state (f T) ...)", "_kw", ["state"], field_slot,
                1, LIMITS["fields"], end=True)
    exact_arity("; (input (name T) ...)", "_kw", ["input"],
                "(list . (symbol) @local.definition.parameter . " + SIMPLE_TYPE + " .)",
                1, LIMITS["fields"], end=True)
    emit("; (let ((name value) ...) body), by position (see highlights.scm)")
    for n in range(1, LIMITS["let"] + 1):
        emit("(list\n  .\n  (symbol)\n  .\n  (list" + "\n    .\n    (list)" * (n - 1)
             + "\n    .\n    (list\n      .\n      (symbol) @local.definition.var)))")
        emit()
    exact_arity("; (enum member ...)", "_kw", ["enum"], "(symbol) @local.definition.constant",
                1, LIMITS["enum"], end=True)
    exact_arity("; (variant ctor ...) with bare constructors", "_kw", ["variant"],
                "(symbol) @local.definition.constant", 1, LIMITS["variant"], end=True)
    emit("; References")
    emit()
    emit("(symbol) @local.reference")

sys.stdout.write("\n".join(out).rstrip() + "\n")
