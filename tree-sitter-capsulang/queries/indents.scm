; Indentation for Capsulang (nvim-treesitter indents).
;
; Each list indents its contents by one 'shiftwidth' relative to the line the
; list opens on (several lists opening on one line count once):
;
;   (machine Door
;     (state closed
;       (on Open
;         (target open))))
;
; A line that starts with ")" lines up with the line that opened its list,
; and a new line typed after a ")" that closes a list is indented as a
; sibling of that list, not as its child. Strings cannot span lines, so they
; need no rule.

(list) @indent.begin

(list
  ")" @indent.branch @indent.end)

; Typing at the end of a file leaves several lists open; tree-sitter then
; folds them into one ERROR node. Indent its contents by one level (the best
; an ancestor walk can do: the open lists are not ancestors of the cursor).
(ERROR) @indent.begin
