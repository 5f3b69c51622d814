module critpath/lab/delayline

go 1.22
