;;; attach.el --- Emacs's Eglot attached to `ferry server' -*- lexical-binding: t -*-
;; Open a file, wait for its diagnostics in Flymake, apply the preferred quick fix,
;; save.  Results go to $FERRY_EMACS_OUT, one line each.
(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
;; Emacs 29 has Eglot built in; Emacs 28 takes it from the elpa-eglot package
(unless (require 'eglot nil t)
  (with-temp-file (getenv "FERRY_EMACS_OUT") (insert "no eglot\n"))
  (kill-emacs 0))

(defvar ferry-out (getenv "FERRY_EMACS_OUT"))
(defvar ferry-lines nil)
(defun ferry-say (line) (push line ferry-lines))
(defun ferry-finish (status)
  (ferry-say status)
  (with-temp-file ferry-out
    (insert (mapconcat #'identity (reverse ferry-lines) "\n") "\n"))
  (kill-emacs 0))

(defun ferry-wait (pred seconds)
  "Process output until PRED holds or SECONDS pass."
  (let ((end (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) end))
      (accept-process-output nil 0.05))
    (funcall pred)))

(setq eglot-server-programs
      `((python-mode ,(getenv "FERRY_EMACS_PYTHON") "-m" "torchferry" "server"
                     :initializationOptions (:ferry (:extendSelect ["FRY001" "FRY009"])))))
;; the file's folder is the project (no version control there)
(add-hook 'project-find-functions
          (lambda (_dir) (cons 'transient (file-name-directory (getenv "FERRY_EMACS_FILE")))))
(find-file (getenv "FERRY_EMACS_FILE"))
(python-mode)
;; what M-x eglot does (`eglot-ensure' waits for a command loop, which batch mode lacks)
(apply #'eglot--connect (eglot--guess-contact))
(unless (ferry-wait (lambda () (flymake-diagnostics)) 60)
  (ferry-finish "no diagnostics"))
(dolist (d (sort (flymake-diagnostics)
                 (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b)))))
  (ferry-say (format "diagnostic %d %s" (line-number-at-pos (flymake-diagnostic-beg d))
                     (flymake-diagnostic-text d))))
(let* ((server (eglot-current-server))
       (actions (jsonrpc-request
                 server :textDocument/codeAction
                 (list :textDocument (eglot--TextDocumentIdentifier)
                       :range (list :start (list :line 2 :character 0)
                                    :end (list :line 2 :character 0))
                       :context (list :diagnostics [])))))
  (seq-doseq (action actions)
    (ferry-say (concat "action " (plist-get action :title)))
    (when (eq (plist-get action :isPreferred) t)
      (eglot--apply-workspace-edit (plist-get action :edit))
      (save-buffer))))
(ferry-finish "done")
