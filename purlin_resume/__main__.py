from purlin_resume.hook_entry import main

main()
