/**
 * tree-sitter grammar for Capsulang.
 *
 * Capsulang is an S-expression language. The grammar is deliberately generic:
 * a file is a sequence of forms; a form is a list, a string, a number or a
 * symbol. Which list is a declaration, a clause or an expression is decided by
 * its head symbol, in the Go syntax layer and in the query files. This keeps
 * tree-sitter's error recovery local to the list a mistake is in and lets new
 * constructs arrive without regenerating the parser.
 */
module.exports = grammar({
  name: 'capsulang',

  extras: $ => [/[\s\uFEFF]/, $.comment],

  rules: {
    source_file: $ => repeat($._form),

    _form: $ => choice($.list, $.string, $.number, $.symbol),

    list: $ => seq('(', repeat($._form), ')'),

    // A line comment runs from ';' to the end of the line.
    comment: _ => token(seq(';', /[^\n\r]*/)),

    // Numbers: integers (-7, 42), decimals (0.5), and suffixed magnitudes
    // such as durations (30m, 24h, 500ms). The syntax layer classifies them
    // and reports anything else that starts with a digit as a bad literal.
    number: _ => token(prec(1, /-?[0-9][0-9A-Za-z_.]*/)),

    string: $ => seq(
      '"',
      repeat(choice($.string_content, $.escape_sequence)),
      token.immediate('"'),
    ),
    string_content: _ => token.immediate(prec(1, /[^"\\\n\r]+/)),
    escape_sequence: _ => token.immediate(seq('\\', choice(/[\\"nrt0]/, /u\{[0-9A-Fa-f]{1,6}\}/, /./))),

    // Symbols cover names (claim_id), dotted paths (event.claim_id,
    // db.write), qualified references (contract:Safe), operators (<=, +)
    // and the literals true, false and none.
    symbol: _ => token(/[^\s()\[\]{}";0-9\uFEFF][^\s()\[\]{}";]*/),
  },
});
