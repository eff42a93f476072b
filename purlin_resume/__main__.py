from purlin_resume.cli.entry import main

main()
