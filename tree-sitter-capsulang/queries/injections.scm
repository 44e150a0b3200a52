; Comments are handed to the `comment` parser where one is installed
; (Neovim with nvim-treesitter), which highlights TODO:, FIXME:, NOTE: and
; the like. Capsulang embeds no other language.

((comment) @injection.content
  (#set! injection.language "comment"))
