" Vim + ALE (Debian's vim-ale) with `ferry server` as an LSP linter, as docs/editor.md
" configures it; then writes what ALE shows and applies the FRY009 quick fix.
" $FERRY_VIM_PYTHON: the interpreter whose torchferry runs; $FERRY_VIM_OUT: the report.
set nocompatible
let &runtimepath = '/usr/share/vim-ale,' . &runtimepath . ',/usr/share/vim-ale/after'
filetype plugin on
let g:ale_linters = {'python': ['ferry']}
let g:ale_linters_explicit = 1
call ale#linter#Define('python', {
\   'name': 'ferry',
\   'lsp': 'stdio',
\   'executable': $FERRY_VIM_PYTHON,
\   'command': '%e -m torchferry server',
\   'project_root': {buffer -> fnamemodify(bufname(buffer), ':p:h')},
\})

let s:report = []
let s:done = 0

function! s:Finish() abort
    call add(s:report, 'done')
    call writefile(s:report, $FERRY_VIM_OUT)
    qall!
endfunction

function! s:Menu(data, items) abort
    for [l:kind, l:item] in a:items
        call add(s:report, 'action ' . l:item.title)
    endfor
    let l:fixes = filter(copy(a:items),
    \   {_, v -> v[1].title =~# 'FRY009' && v[1].title !~# 'disable'})
    if !empty(l:fixes)
        call ale#codefix#ApplyLSPCodeAction(a:data, l:fixes[0][1])
        silent write
    endif
    call s:Finish()
endfunction

function! s:Linted() abort
    let l:loclist = get(get(g:ale_buffer_info, bufnr(''), {}), 'loclist', [])
    if s:done || empty(l:loclist)
        return
    endif
    let s:done = 1
    for l:item in l:loclist
        call add(s:report, printf('diagnostic %s %d %s', get(l:item, 'code', ''),
        \   l:item.lnum, l:item.linter_name))
    endfor
    call cursor(search('zeros', 'w'), 0)
    call ale#codefix#Execute(0, function('s:Menu'))
endfunction

autocmd User ALELintPost call s:Linted()
call timer_start(120000, {-> s:Finish()})
