;;; eglot-test.el --- the Emacs real-host test: eglot against caps lsp -*- lexical-binding: t -*-

;; Run by eglot_test.go: emacs --batch -Q -l CAPSULANG_SETUP -l eglot-test.el
;; CAPSULANG_SETUP is the elisp block of docs/editors.md, as a reader would
;; put it in their init file; `caps' is found on exec-path.  Environment:
;; CAPS_EMACS_FILE, the fixture.  Prints "ok   CHECK" or "FAIL CHECK: why"
;; per check, then "N passed, M failed", and exits 0 or 1.

(require 'eglot)
(require 'flymake)
(require 'xref)
(require 'cl-lib)

(defvar caps-passed 0)
(defvar caps-failed 0)

(defun caps-check (name ok &optional detail)
  (if ok
      (progn (setq caps-passed (1+ caps-passed)) (princ (format "ok   %s\n" name)))
    (setq caps-failed (1+ caps-failed))
    (princ (format "FAIL %s%s\n" name (if detail (format ": %S" detail) "")))))

(defun caps-wait (pred seconds)
  "Run timers and process output until PRED is non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

(defun caps-finish ()
  (princ (format "%d passed, %d failed\n" caps-passed caps-failed))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (kill-emacs (if (= caps-failed 0) 0 1)))

(defun caps-goto (line col)
  (goto-char (point-min))
  (forward-line (1- line))
  (move-to-column (1- col)))

(condition-case err
    (progn
      (find-file (getenv "CAPS_EMACS_FILE"))
      (caps-check "capsulang-mode from the documented set-up" (eq major-mode 'capsulang-mode) major-mode)
      ;; eglot-ensure connects after the next command; batch mode runs none.
      (run-hooks 'post-command-hook)
      (caps-check "eglot connects to caps lsp" (caps-wait #'eglot-current-server 30))
      (unless (eglot-current-server) (caps-finish))

      ;; Diagnostics through Flymake, at the mistake.
      (let ((d (car (caps-wait (lambda () (flymake-diagnostics)) 30))))
        (caps-check "flymake shows the diagnostic"
                    (and d (string-match-p (regexp-quote "unknown state `scord` in machine Claim; did you mean `scored`?")
                                           (flymake-diagnostic-text d)))
                    (and d (flymake-diagnostic-text d)))
        (caps-check "at line 19, column 26"
                    (and d (save-excursion
                             (goto-char (flymake-diagnostic-beg d))
                             (equal (list (line-number-at-pos) (1+ (current-column))) '(19 26))))
                    (and d (save-excursion (goto-char (flymake-diagnostic-beg d))
                                           (list (line-number-at-pos) (1+ (current-column)))))))

      ;; Hover, through eglot's ElDoc function.
      (caps-goto 7 14)
      (let (doc)
        (eglot-hover-eldoc-function (lambda (s &rest _) (setq doc (or s doc)) t))
        (caps-wait (lambda () doc) 15)
        (caps-check "hover on `double` shows its signature"
                    (and (stringp doc) (string-match-p "double" doc) (string-match-p "I64" doc)) doc))

      ;; Go to definition, through eglot's xref backend.
      (caps-goto 21 25) ; `closed' in (on Close (target closed))
      (let* ((backend (xref-find-backend))
             (defs (xref-backend-definitions backend (xref-backend-identifier-at-point backend)))
             (loc (and defs (xref-item-location (car defs)))))
        (caps-check "definition of `closed' is its state"
                    (and loc (= (xref-location-line loc) 22)) (and loc (xref-location-line loc))))

      ;; A code action: the quick fix, chosen by its title.
      (caps-goto 19 26)
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest _)
                   (let ((names (if (functionp collection) (all-completions "" collection) (mapcar (lambda (c) (if (consp c) (car c) c)) collection))))
                     (or (cl-find-if (lambda (n) (string-match-p "Change `scord` to `scored`" n)) names)
                         (error "no quick fix titled \"Change `scord` to `scored`\" among %S" names))))))
        ;; As if invoked from the keyboard (M-x), so eglot asks through
        ;; completing-read rather than a popup menu.
        (let ((last-nonmenu-event ?x))
          (eglot-code-actions (point) (point) nil t)))
      (caps-check "the code action edits the buffer"
                  (caps-wait (lambda () (save-excursion (goto-char (point-min)) (search-forward "(target scored)" nil t))) 15))
      ;; eglot sends the change from an idle timer, which batch mode never
      ;; reaches (Emacs is not waiting for input): send it as it would.
      (eglot--signal-textDocument/didChange)
      (caps-check "and the diagnostic goes away"
                  (caps-wait (lambda () (null (flymake-diagnostics))) 30)
                  (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
  (error (caps-check "the session ran to the end" nil err)))
(caps-finish)
