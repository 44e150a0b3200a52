; Text objects for Capsulang (nvim-treesitter-textobjects).
;
;   @function.outer / .inner      (function NAME ...) / the clauses after NAME
;   @class.outer / .inner         machine, type, store, surface, port, agent and
;                                 governance/authority declarations / the
;                                 clauses after NAME
;   @block.outer / .inner         machine states (state NAME ...) and transitions
;                                 (on EVENT ...) / what follows the name
;   @parameter.outer / .inner     each (name Type) of an (input ...) clause
;   @conditional.outer / .inner   (if ...) and (match ...) / their operands
;   @assignment.outer / .inner    each (field expr) of an (assign ...) clause,
;     .lhs / .rhs                 with the field and the expression
;   @call.outer / .inner          any list with a head symbol / its arguments
;   @statement.outer              any list
;   @comment.outer / .inner       a comment
;
; Declarations are recognised as in highlights.scm: by their head symbol, and
; for heads that also name clauses -- (store S) in a persistence clause,
; (type final) in a state, (principal P) in a capability, (capability A B) in
; a trust boundary -- by their shape: (type NAME T), or NAME and then a clause. "#make-range!" is the nvim-treesitter-textobjects directive
; for an inner object spanning several nodes (other tools ignore it); a
; separate pattern covers an inner object of a single node. (A `(_)*` between
; anchored nodes would be simpler, but tree-sitter 0.22 does not honour the
; anchor after a quantifier.)

; ---------------------------------------------------------------------------
; Functions

((list
  .
  (symbol) @_kw
  (#eq? @_kw "function")) @function.outer)

((list
  .
  (symbol) @_kw
  (#eq? @_kw "function")
  .
  (symbol)
  .
  (_) @_start
  (_) @_end
  .)
  (#make-range! "function.inner" @_start @_end))

; a single element
(list
  .
  (symbol) @_kw
  (#eq? @_kw "function")
  .
  (symbol)
  .
  (_) @function.inner
  .)

; ---------------------------------------------------------------------------
; Machines and other declarations

((list
  .
  (symbol) @_kw
  (#any-of? @_kw
    "machine" "surface" "port" "agent" "contract" "lineage" "eval-suite" "successor-contract"
    "budget" "gate" "deployment-policy" "improvement-record" "verification-hook" "mandate"
    "delegation" "authority-policy" "trust-boundary" "telemetry-obligation" "memory-policy"
    "zk-proof")
  .
  (symbol)) @class.outer)

((list
  .
  (symbol) @_kw
  (#eq? @_kw "type")
  .
  (symbol)
  .
  (_)) @class.outer)

((list
  .
  (symbol) @_kw
  (#any-of? @_kw "store" "capability" "principal" "objective")
  .
  (symbol)
  .
  [
    (list)
    (comment)
  ]) @class.outer)

((list
  .
  (symbol) @_kw
  (#any-of? @_kw
    "machine" "type" "store" "surface" "port" "agent" "contract" "lineage" "objective"
    "eval-suite" "successor-contract" "budget" "gate" "deployment-policy" "improvement-record"
    "verification-hook" "principal" "mandate" "delegation" "capability" "authority-policy"
    "trust-boundary" "telemetry-obligation" "memory-policy" "zk-proof")
  .
  (symbol)
  .
  (_) @_start
  (_) @_end
  .)
  (#make-range! "class.inner" @_start @_end))

; a single element
(list
  .
  (symbol) @_kw
  (#any-of? @_kw
    "machine" "type" "store" "surface" "port" "agent" "contract" "lineage" "objective"
    "eval-suite" "successor-contract" "budget" "gate" "deployment-policy" "improvement-record"
    "verification-hook" "principal" "mandate" "delegation" "capability" "authority-policy"
    "trust-boundary" "telemetry-obligation" "memory-policy" "zk-proof")
  .
  (symbol)
  .
  (_) @class.inner
  .)

; ---------------------------------------------------------------------------
; States and transitions. A surface's (state (field T) ...) has no name and is
; not a block; a transition is (on EVENT clause ...).

((list
  .
  (symbol) @_kw
  (#any-of? @_kw "state" "on")
  .
  (symbol)) @block.outer)

((list
  .
  (symbol) @_kw
  (#any-of? @_kw "state" "on")
  .
  (symbol)
  .
  (_) @_start
  (_) @_end
  .)
  (#make-range! "block.inner" @_start @_end))

; a single element
(list
  .
  (symbol) @_kw
  (#any-of? @_kw "state" "on")
  .
  (symbol)
  .
  (_) @block.inner
  .)

; ---------------------------------------------------------------------------
; Parameters

(list
  .
  (symbol) @_input
  (#eq? @_input "input")
  (list) @parameter.outer)

(list
  .
  (symbol) @_input
  (#eq? @_input "input")
  (list) @parameter.inner)

; ---------------------------------------------------------------------------
; Conditionals

((list
  .
  (symbol) @_kw
  (#any-of? @_kw "if" "match")) @conditional.outer)

((list
  .
  (symbol) @_kw
  (#any-of? @_kw "if" "match")
  .
  (_) @_start
  (_) @_end
  .)
  (#make-range! "conditional.inner" @_start @_end))

; a single element
(list
  .
  (symbol) @_kw
  (#any-of? @_kw "if" "match")
  .
  (_) @conditional.inner
  .)

; ---------------------------------------------------------------------------
; Assignments: (assign (field expr) ...)

(list
  .
  (symbol) @_assign
  (#eq? @_assign "assign")
  (list
    .
    (symbol) @assignment.lhs
    .
    (_) @assignment.rhs @assignment.inner) @assignment.outer)

; ---------------------------------------------------------------------------
; Calls and statements

((list
  .
  (symbol)) @call.outer)

((list
  .
  (symbol)
  .
  (_) @_start
  (_) @_end
  .)
  (#make-range! "call.inner" @_start @_end))

; a single element
(list
  .
  (symbol)
  .
  (_) @call.inner
  .)

(list) @statement.outer

; ---------------------------------------------------------------------------
; Comments

(comment) @comment.outer

(comment) @comment.inner
