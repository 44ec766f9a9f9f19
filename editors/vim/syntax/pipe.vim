" Vim syntax file for Pipe's .pipe language (docs/language.md).
" Install: copy editors/vim/syntax and editors/vim/ftdetect into ~/.vim/.
" test/tools/editor-grammars.test checks the words against the compiler's.
if exists("b:current_syntax")
  finish
endif

syn keyword pipeKeyword pipeline if else for in
syn keyword pipeBoolean true false
syn keyword pipeType bf16 bool f16 f32 f64 i16 i32 i64 i8 u16 u32 u64 u8
syn keyword pipeFunction abs all any atan2 box_filter brightness_contrast ceil clamp
syn keyword pipeFunction coin_flip color_space_conversion color_twist concat conv2d
syn keyword pipeFunction cos cpu crop dilate erase erode exp flip floor full gather
syn keyword pipeFunction gaussian_blur gpu hsv hue iota log max mean median min
syn keyword pipeFunction normal ones pad pow prod randint random_resized_crop reshape resize
syn keyword pipeFunction rotate round rsqrt saturation select sin sqrt stack
syn keyword pipeFunction sum take tanh transpose uniform warp_affine zeros
" `max` of a loop (`for i in 0 .. n max 4`), not the function.
syn match pipeKeyword "\<max\>\(\s*(\)\@!"
syn match pipeMemory "@\(host\|device\)\>"
syn match pipeNumber "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=\>"
syn match pipeComment "#.*$"

hi def link pipeKeyword Statement
hi def link pipeBoolean Boolean
hi def link pipeType Type
hi def link pipeFunction Function
hi def link pipeMemory StorageClass
hi def link pipeNumber Number
hi def link pipeComment Comment

let b:current_syntax = "pipe"
