"""Checks the editor grammars (editors/) against the compiler: every
function, dtype and keyword pipec knows is highlighted by both the TextMate
grammar and the Vim syntax file, and neither names a function or dtype the
compiler does not know (a stale name after an op is renamed).

  check_grammars.py LIST_FUNCTIONS_OUTPUT LEXER_CPP EDITORS_DIR"""
import json
import os
import re
import sys

listing, lexer, editors = sys.argv[1:4]
known = {'function': set(), 'dtype': set()}
for line in open(listing):
    kind, name = line.split()[:2]
    if kind == 'dtype':
        known['dtype'].add(name)
    elif kind in ('function', 'elementwise'):  # not the operators
        known['function'].add(name)
# The lexer's keywords, and the loop's contextual `in` and `max`.
keywords = set(re.findall(r'token\.text == "(\w+)"',
                          open(lexer).read())) | {'in', 'max'}
keywords -= {'true', 'false'}  # constants, highlighted as such

grammar = json.load(open(os.path.join(editors, 'vscode', 'syntaxes',
                                      'pipe.tmLanguage.json')))['repository']


def words(pattern):
    """The names in a pattern's alternations (its escapes taken out)."""
    return set(re.findall(r'[a-z_][a-z_0-9]*',
                          re.sub(r'\\[a-zA-Z]', ' ', pattern)))


text = {'function': words(grammar['function']['match'].split('(?=')[0]),
        'dtype': words(grammar['dtype']['match'])}
vim = open(os.path.join(editors, 'vim', 'syntax', 'pipe.vim')).read()
vim_words = {'function': set(), 'dtype': set(), 'keyword': set()}
for group, kind in (('pipeFunction', 'function'), ('pipeType', 'dtype'),
                    ('pipeKeyword', 'keyword')):
    for line in re.findall(r'^syn keyword ' + group + r' (.*)$', vim, re.M):
        vim_words[kind] |= set(line.split())
    for match in re.findall(r'^syn match ' + group + r' "\\<(\w+)', vim, re.M):
        vim_words[kind].add(match)
text_keywords = words(grammar['keyword']['match'])

problems = []
for kind in ('function', 'dtype'):
    for where, have in (('TextMate', text[kind]), ('Vim', vim_words[kind])):
        for name in sorted(known[kind] - have):
            problems.append(f'{where} grammar lacks the {kind} {name}')
        for name in sorted(have - known[kind]):
            problems.append(f'{where} grammar has the {kind} {name}, which '
                            'pipec does not know')
for where, have in (('TextMate', text_keywords), ('Vim', vim_words['keyword'])):
    for name in sorted(keywords - have):
        problems.append(f'{where} grammar lacks the keyword {name}')
for p in problems:
    print('MISMATCH', p)
print(f'{len(known["function"])} functions, {len(known["dtype"])} dtypes, '
      f'{len(keywords)} keywords checked; {len(problems)} problems')
sys.exit(1 if problems else 0)
