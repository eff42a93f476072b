from purlin_resume.cli import main

main()
