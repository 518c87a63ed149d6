module quartermaster.example/hostloop

go 1.19
