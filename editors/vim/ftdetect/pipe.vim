autocmd BufRead,BufNewFile *.pipe setfiletype pipe
