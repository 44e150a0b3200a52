; Folding for Capsulang: every list folds. Neovim only creates a fold for a
; node that spans more than one line, so in practice every multi-line list
; folds -- modules, declarations, machine states, transitions, clauses and
; long expressions alike.

(list) @fold
