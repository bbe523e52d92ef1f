# cmake -DIN=<source> -DOUT=<generated .cpp> -P hcts_asc_rewrite.cmake (HctsAsc.cmake):
# rewrites each kernel<<<config>>>( of an ASC source into ::hcts_asc::launch(kernel, config)(.
if(NOT IN OR NOT OUT)
  message(FATAL_ERROR "hcts_asc_rewrite.cmake: give -DIN=<source> -DOUT=<output>")
endif()
file(READ "${IN}" text)
string(REGEX REPLACE "([A-Za-z_][A-Za-z0-9_:]*)[ \t]*<<<([^;{}]*)>>>[ \t]*\\(" "::hcts_asc::launch(\\1, \\2)(" text
       "${text}")
# Comments may name the syntax ("<<<>>>"): only launches are rewritten, and one this cannot
# read stays as it is and fails to compile, naming its own line (#line).
file(WRITE "${OUT}.tmp" "#line 1 \"${IN}\"\n${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
