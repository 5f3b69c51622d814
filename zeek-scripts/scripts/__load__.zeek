@load ./main
